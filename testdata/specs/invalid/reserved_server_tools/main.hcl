# Locked server tools whose exposed names are the runtime's own tools.
toolgen { separator = "_" }

server "tool" { # ERROR: Reserved tool name
  command = "npx"
}

server "agent_" { # ERROR: Reserved server name
  command = "npx"
}

server "mcp" { # ERROR: Reserved tool name
  command = "npx"
}

server "fine" {
  command = "npx"
}
