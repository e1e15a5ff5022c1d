tool "tool_find" { # ERROR: Reserved tool name
  go = "example.com/t.Find"
}

tool "agent__helper" { # ERROR: Reserved tool name
  go = "example.com/t.Helper"
}

server "router" { # ERROR: Reserved server name
  command = "npx"
}
