server "remote" {
  url   = "https://mcp.example.com/mcp"
  tasks = true
}

server "events" {
  transport = "sse"
  url       = "https://mcp.example.com/sse"
  tasks     = true # ERROR: Tasks not passed through over sse
}

server "local" {
  command = "jobs-mcp"
  tasks   = true
}

server "plain" {
  url   = "https://mcp.example.com/plain"
  tasks = false
}

agent "a" {
  tools { use = [server.remote, server.events, server.local, server.plain] }
}
