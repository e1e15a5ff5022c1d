tool "read_file" {
  description = # ERROR: Invalid expression
}
