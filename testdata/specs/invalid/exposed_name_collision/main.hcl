policy "p" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "github__search" {
  policy = policy.p
}

server "github" { # ERROR: Exposed name collision
  command = "npx"
}

server "gh" { # ERROR: Exposed name collision
  command = "npx"
}
