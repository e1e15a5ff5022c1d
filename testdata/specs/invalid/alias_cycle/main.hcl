policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "read_file" {
  policy = policy.p
}

agent "a" {
  tools {
    use = [tool.read_file]
    aliases = {
      one   = "two" # ERROR: Alias cycle
      two   = "three"
      three = "one"
      self  = "self" # ERROR: Alias cycle
      ok    = "read_file"
      bad   = "read_fille" # ERROR: Unknown alias target
    }
  }
}
