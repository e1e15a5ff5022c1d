tool "t" {
  description = env("DESC") # ERROR: Invalid function argument
  go          = "example.com/t.T"
}

server "s" {
  command = "npx"
  env     = { TOKEN = env("bad-name") } # ERROR: Invalid environment variable name
}

server "u" {
  url     = "https://example.com/mcp"
  headers = { Authorization = env("A", "B", "C") } # ERROR: Invalid env call
}

server "v" {
  url     = "https://example.com/mcp"
  headers = { Authorization = env("MCP_AUTH", "Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789") } # WARNING: Literal secret
}
