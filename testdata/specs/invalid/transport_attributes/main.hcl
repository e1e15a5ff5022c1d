server "local" {
  transport = "stdio" # ERROR: Missing command
  args      = ["serve"]
}

server "remote" {
  transport = "http" # ERROR: Missing url
  headers   = { Accept = "application/json" }
}

server "raw" {
  transport = "tcp" # ERROR: Missing address
}

server "socket" {
  transport = "ws"
  url       = "wss://example.com/mcp"
  command   = "node" # ERROR: Attribute not used by transport
}

server "mixed" {
  transport = "sse"
  url       = "ws://example.com/sse" # ERROR: Invalid URL
}

server "typo" {
  transport = "stdoi" # ERROR: Invalid transport
  command   = "x"
}

server "nothing" { # ERROR: Missing transport
}

server "port" {
  address = "localhost" # ERROR: Invalid address
}
