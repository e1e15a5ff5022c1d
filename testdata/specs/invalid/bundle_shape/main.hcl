server "s" {
  command = "npx"
}

tool "t" {
  go = "example.com/t.T"
}

bundle "empty" { # ERROR: Empty bundle
}

bundle "both" {
  server = server.s
  tools  = [tool.t] # ERROR: Bundle with server and tools
}

bundle "meta_tools" {
  mode  = "meta" # ERROR: Meta bundle without server
  tools = [tool.t]
}

bundle "filter" {
  tools       = [tool.t]
  allow_tools = ["x"] # ERROR: Filter without server
}

bundle "wrong_kind" {
  server = tool.t # ERROR: Invalid reference
}
