policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "read_file" {
  policy = policy.p
}

agent "a" {
  tools {
    use = [
      tool.read_file,
      runtime.output_read,
      runtime.agent_batch, # ERROR: Unknown runtime tool
      runtime.tool_find,   # ERROR: Unknown runtime tool
      tool.output_read,    # ERROR: Unknown tool
    ]
  }
}

agent "b" {
  discovery = true
  tools { # WARNING: Runtime tool not allowed
    use     = [tool.read_file, runtime.agent__final_report]
    allowed = ["read_file"]
  }
}
