server "notes" {
  command = "notes-mcp"
  args    = ["--api-key", "k3yFAKE0123456789", "--token=ghp_aaaaaaaaaaaaaaaaaaaa", "--verbose"] # WARNING: Literal secret # WARNING: Literal secret
}

server "search" {
  url = "https://search.example.com/mcp?api_key=FAKE0123456789abcdef&lang=en" # WARNING: Literal secret
}

server "intranet" {
  url     = "http://mcp.intranet.example:8080/mcp" # WARNING: Credential over plain HTTP
  headers = { Authorization = "Bearer ${env("INTRANET_TOKEN")}" }
}

server "local" {
  url     = "http://127.0.0.1:8080/mcp"
  headers = { Authorization = "Bearer ${env("LOCAL_TOKEN")}" }
}

policy "everything" {
  builtin       = "fs_read"
  allowed_paths = ["/"] # ERROR: Allowed path is the whole file system
}

policy "dev" {
  builtin       = "fs_read"
  allowed_paths = ["."]
}

policy "dev_write" {
  builtin       = "fs_write"
  allowed_paths = ["."] # WARNING: Allowed path is the whole working directory
}

policy "hooks" {
  builtin       = "fs_write"
  allowed_paths = ["./workspace", "./.git/hooks", "toolgen.lock.json"] # ERROR: Allowed path holds .git # ERROR: Allowed path holds toolgen.lock.json
}

policy "repo_read" {
  builtin       = "fs_read"
  allowed_paths = [".git"] # WARNING: Allowed path holds .git
}

policy "run" {
  builtin          = "shell_exec"
  allowed_commands = ["git", "/bin/bash", "python3"] # ERROR: Shell in allowed_commands # WARNING: Interpreter in allowed_commands
}

tool "read" {
  description = "Read a file."
  policy      = policy.dev
}

agent "a" {
  tools { use = [tool.read, server.notes, server.search, server.intranet, server.local] }
}
