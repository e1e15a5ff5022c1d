# The runtime's names do not follow the separator: agent__<name> stays
# reserved under "-", and agent-<name> is an ordinary name.
toolgen { separator = "-" }

tool "agent__researcher" { # ERROR: Reserved tool name
  go = "example.com/t.Researcher"
}

tool "agent-notes" {
  go = "example.com/t.Notes"
}

tool "mcp_call_tool" { # ERROR: Reserved tool name
  go = "example.com/t.Call"
}

# Exposes agent-<tool>: not reserved.
server "agent" {
  command = "npx"
}

# Exposes agent__docs-<tool>: every name reserved.
server "agent__docs" { # ERROR: Reserved server name
  command = "npx"
}

server "router" {
  command = "npx"
}
