server "github" {
  command     = "npx"
  allow_tools = ["search_[code"] # ERROR: Invalid glob
}

agent "a" {
  tools {
    use     = ["entities_[", server.github] # ERROR: Invalid glob
    allowed = ["\\"] # ERROR: Invalid glob
  }
}
