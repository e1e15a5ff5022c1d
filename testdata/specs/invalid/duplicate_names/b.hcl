tool "read_file" { # ERROR: Duplicate tool
  policy = policy.ws
}

server "github" { # ERROR: Duplicate server
  command = "npx"
}

agent "a" {}
agent "a" {} # ERROR: Duplicate agent

workflow "w" {}
workflow "w" {} # ERROR: Duplicate workflow
