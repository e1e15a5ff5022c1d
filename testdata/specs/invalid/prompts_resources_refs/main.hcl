prompt "review" {
  template = "Review the code."
}

prompt "review" { # ERROR: Duplicate prompt
  template = "again"
}

resource "guide" {
  uri  = "docs://guide"
  text = "b"
}

resource "guide_copy" {
  uri  = "docs://guide" # ERROR: Duplicate URI
  text = "c"
}

agent "a" {
  tools {
    use     = [prompt.reviw, resource.guid] # ERROR: Unknown prompt # ERROR: Unknown resource
    allowed = [prompt.review, resource.guide, tool.review] # ERROR: Unknown tool
  }
}
