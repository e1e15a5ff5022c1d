tool "weather" { # ERROR: Missing input_schema
  rest { url = "https://api.weather.example/v1/{city}" }
}

tool "forecast" {
  rest { url = "https://api.weather.example/v1/{city}/{days}" }
  input_schema = { type = "object", properties = { cty = { type = "string" }, days = { type = "integer" } } } # ERROR: Unknown URL parameter
}
