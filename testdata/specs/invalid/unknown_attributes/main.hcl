tool "read_file" {
  descripton = "Typo in the attribute name." # ERROR: Unsupported argument
  go         = "example.com/t.Read"
}

tol "x" { # ERROR: Unsupported block type
}

server "s" {
  command = "x"
  healthcheck { # ERROR: Unsupported block type
  }
}

agent "a" {
  tools {
    uses = ["x"] # ERROR: Unsupported argument
  }
}
