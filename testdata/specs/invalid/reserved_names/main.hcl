tool "tool_find" { # ERROR: Reserved tool name
  go = "example.com/t.Find"
}

tool "agent__helper" { # ERROR: Reserved tool name
  go = "example.com/t.Helper"
}

tool "router__handoff-to" { # ERROR: Reserved tool name
  go = "example.com/t.Handoff"
}

# Only the runtime's own names are reserved: other router__ names are free.
tool "router__notes" {
  go = "example.com/t.Notes"
}

server "agent" { # ERROR: Reserved server name
  command = "npx"
}

# router__<tool> is free except router__handoff-to, which a lock entry would
# have to name.
server "router" {
  command = "npx"
}
