tool "read.file" { # ERROR: Invalid name
  go = "example.com/t.Read"
}

server "git hub" { # ERROR: Invalid name
  command = "npx"
}

agent "this_agent_name_is_far_too_long_to_be_a_portable_tool_name_for_any_provider" { # ERROR: Invalid name
}

toolgen {
  separator = "." # ERROR: Invalid separator
  package   = "my-pkg" # ERROR: Invalid package name
}
