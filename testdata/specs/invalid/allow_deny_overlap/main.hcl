server "github" {
  command     = "npx"
  allow_tools = ["search_code", "get_file_contents", "delete_*"]
  deny_tools  = ["search_code", # ERROR: Overlapping allow and deny
    "get_*",                    # ERROR: Overlapping allow and deny
  "delete_*"]                   # ERROR: Overlapping allow and deny
}

bundle "b" {
  server      = server.github
  allow_tools = ["get_file_contents"]
  deny_tools  = ["get_file_contents"] # ERROR: Overlapping allow and deny
}
