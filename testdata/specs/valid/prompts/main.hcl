prompt "review" {
  description = "Review a file for bugs."
  argument "path" {
    description = "File to review."
    required    = true
  }
  template = "Review {path} for bugs and explain each one."
}

prompt "pair" {
  description = "Start a pairing session."
  argument "topic" {}
  message {
    role = "user"
    text = "Let's pair on {topic}."
  }
  message {
    role = "assistant"
    text = "Sure: what about {topic} first?"
  }
}

resource "style_guide" {
  uri         = "docs://style-guide"
  description = "The team's style guide."
  mime_type   = "text/markdown"
  text        = file("style.md")
}

resource "notes" {
  uri  = "docs://notes"
  text = "Nothing yet."
}

server "github" {
  command         = "npx"
  args            = ["-y", "@modelcontextprotocol/server-github"]
  allow_prompts   = ["review_*"]
  deny_prompts    = ["admin_*"]
  allow_resources = ["repo://*"]
  deny_resources  = ["repo://secret/*"]
  allow_skills    = ["review-*"]
  deny_skills     = ["review-secrets"]
}

agent "coder" {
  tools {
    use     = [prompt.review, resource.style_guide, server.github]
    allowed = [prompt.review, resource.style_guide, "github__*", "repo://*"]
  }
}

agent "writer" {
  tools {
    use = [prompt.pair, resource.notes, resource.style_guide]
  }
}
