tool "a" {
  description = file("missing.md") # ERROR: Invalid function argument
  go          = "example.com/t.A"
}

tool "b" {
  description = file("../outside.md") # ERROR: Invalid function argument
  go          = "example.com/t.B"
}
