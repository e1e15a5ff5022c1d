server "docs" {
  command  = "docs-mcp"
  on_drift = "pinned" # ERROR: Invalid on_drift
}

server "web" {
  command     = "web-mcp"
  trust       = "untrusted"
  allow_tools = ["fetch"]
  on_drift    = "ignore" # ERROR: Invalid on_drift
}

server "ok" {
  command  = "ok-mcp"
  on_drift = "refuse"
}

agent "a" {
  tools { use = [server.docs, server.ok] }
}
