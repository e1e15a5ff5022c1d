policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "nothing" { # ERROR: Tool without implementation
  description = "Has no implementation."
}

tool "both" {
  policy = policy.p
  go     = "example.com/x.Both" # ERROR: Tool with several implementations
}

tool "rest_and_go" {
  rest { # ERROR: Tool with several implementations
    url = "https://example.com"
  }
  policy = policy.p
}

tool "bad_go" {
  go = "example.com/x.lower" # ERROR: Invalid Go function
}
