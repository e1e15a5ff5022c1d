tool "by_city" {
  rest { url = "{city}" } # ERROR: Invalid URL
  input_schema = { type = "object", properties = { city = { type = "string" } } }
}

tool "by_base" {
  rest { url = "{+base}/v1/weather" } # ERROR: Invalid URL
  input_schema = { type = "object", properties = { base = { type = "string" } } }
}

tool "no_scheme" {
  rest { url = "api.weather.example/v1" } # ERROR: Invalid URL
}

tool "from_env" {
  rest { url = "${env("WEATHER_BASE")}/v1/{city}" }
  input_schema = { type = "object", properties = { city = { type = "string" } } }
}

tool "literal" {
  rest { url = "https://api.weather.example/v1/{city}" }
  input_schema = { type = "object", properties = { city = { type = "string" } } }
}
