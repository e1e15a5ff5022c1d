policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "read_file" {
  policy = policy.p
}

tool "write_file" {
  policy = policy.p
}

agent "a" {
  discovery = true
  tools {
    use = [tool.read_file, tool.write_file]
    aliases = {
      write_file = "read_file" # ERROR: Alias shadows tool
      tool_find  = "read_file" # ERROR: Alias shadows tool
    }
  }
}
