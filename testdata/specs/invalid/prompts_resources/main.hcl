prompt "review" {
  argument "path" {}
  argument "path" {} # ERROR: Duplicate argument
  argument "depth" {} # WARNING: Unused argument
  template = "Review {path} at {pth}." # ERROR: Unknown placeholder
}

prompt "both" {
  template = "One."
  message { # ERROR: Template and messages both set
    role = "user"
    text = "Two."
  }
}

prompt "empty" {} # ERROR: Missing template

prompt "badrole" {
  message {
    role = "system" # ERROR: Invalid role
    text = "Hi."
  }
}

resource "a" {
  uri  = "no scheme here" # ERROR: Invalid URI
  text = "a"
}

resource "b" {
  uri  = "docs://b"
  text = "b"
}

server "gh" {
  command         = "npx"
  allow_prompts   = ["review_*", "[bad"] # ERROR: Invalid glob
  deny_prompts    = ["review_*"]         # ERROR: Overlapping allow and deny
  allow_resources = ["repo://a/b"]
  deny_resources  = ["repo://*"] # ERROR: Overlapping allow and deny
  allow_skills    = ["release-notes"]
  deny_skills     = ["release-*"] # ERROR: Overlapping allow and deny
}

server "shady" {
  command       = "npx"
  trust         = "untrusted"
  allow_tools   = ["fetch"]
  allow_prompts = ["x"] # ERROR: Untrusted server with allow_prompts
  allow_skills  = ["y"] # ERROR: Untrusted server with allow_skills
}
