tool "a" {
  go            = "example.com/t.A"
  output_schema = { type = "object" } # ERROR: Output schema of a Go tool
}

tool "b" {
  rest { url = "https://example.com/b" }
  output_schema = "not json" # ERROR: Invalid output schema
}

tool "c" {
  rest { url = "https://example.com/c" }
  annotations {
    read_only = "sometimes" # ERROR: Invalid value
  }
}

tool "d" {
  rest { url = "https://example.com/d" }
  annotations { read_only = true }
  annotations { idempotent = true } # ERROR: Duplicate annotations block
}

tool "e" {
  rest { url = "https://example.com/e" }
  annotations {
    readonly = true # ERROR: Unsupported argument
  }
}

server "s" {
  command     = "s"
  sampling    = "always" # ERROR: Invalid sampling
  elicitation = "model"  # ERROR: Invalid elicitation
}

tool "f" {
  rest { url = "https://example.com/f" }
  task = "sometimes" # ERROR: Invalid task support
}

tool "g" {
  rest { url = "https://example.com/g" }
  task = "after_input" # ERROR: Invalid task support
}
