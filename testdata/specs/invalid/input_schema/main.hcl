tool "a" {
  rest { url = "https://example.com/a" }
  input_schema = { type = "string" } # ERROR: Invalid input schema
}

tool "b" {
  rest { url = "https://example.com/b" }
  input_schema = "not json" # ERROR: Invalid input schema
}

tool "c" {
  go           = "example.com/t.C"
  input_schema = { type = "object" } # ERROR: Input schema of a Go tool
}

tool "d" {
  rest { url = "https://example.com/d" }
  input_schema = { type = "object", properties = ["x"] } # ERROR: Invalid input schema
}
