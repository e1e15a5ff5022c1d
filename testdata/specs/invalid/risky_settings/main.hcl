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

server "sso" {
  url = "https://sso.example.com/mcp"
  auth {
    client_id = "agent"
    issuer    = "http://login.intranet.example/oauth" # WARNING: OAuth issuer over plain HTTP
  }
}

server "sso_local" {
  url = "https://sso.example.com/mcp"
  auth {
    client_id = "agent"
    issuer    = "http://localhost:9000/oauth"
  }
}

tool "tickets" {
  description = "List open tickets."
  rest {
    url     = "http://tickets.intranet.example/api/tickets" # WARNING: Credential over plain HTTP
    headers = { X-Api-Key = env("TICKETS_KEY") }
  }
}

tool "tickets_local" {
  description = "List open tickets on this machine."
  rest {
    url     = "http://127.0.0.1:9000/api/tickets"
    headers = { X-Api-Key = env("TICKETS_KEY") }
  }
}

tool "weather" {
  description = "Public weather, no secret."
  rest {
    url     = "http://weather.example/today"
    headers = { Accept = "application/json" }
  }
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
  tools { use = [tool.read, tool.tickets, tool.tickets_local, tool.weather, server.notes, server.search, server.intranet, server.local, server.sso, server.sso_local] }
}
