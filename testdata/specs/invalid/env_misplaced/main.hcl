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
  headers = { Authorization = env("A", "B") } # ERROR: Invalid env call
}
