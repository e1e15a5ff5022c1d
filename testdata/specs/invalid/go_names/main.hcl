tool "read_file" {
  go = "example.com/t.ReadFile"
}

tool "read-file" { # ERROR: Conflicting Go names
  go = "example.com/t.ReadFile2"
}

agent "code_reviewer" {}
agent "codeReviewer" {} # ERROR: Conflicting Go names
