toolgen { package = "dup" }

policy "ws" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

tool "read_file" {
  policy = policy.ws
}

server "github" {
  command = "npx"
}
