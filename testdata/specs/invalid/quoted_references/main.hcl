policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "read_file" {
  policy = policy.p
}

agent "a" {
  tools {
    use     = ["tool.read_file", "runtime.output_read", "read_*"] # ERROR: Quoted reference # ERROR: Quoted reference
    allowed = ["tool.read_file", "read_file"]                    # ERROR: Quoted reference
    aliases = { cat = "tool.read_file" }                          # ERROR: Quoted reference
  }
}
