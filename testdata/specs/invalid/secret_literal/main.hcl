server "docs" {
  url     = "https://docs.example.com/mcp"
  headers = {
    Authorization = "Bearer abc123def456" # WARNING: Literal secret
    X-Api-Key     = "0123456789abcdef"    # WARNING: Literal secret
    Accept        = "application/json"
    X-Token       = env("DOCS_TOKEN")
  }
}

server "gh" {
  command = "npx"
  env = {
    GITHUB_TOKEN = "ghp_aaaaaaaaaaaaaaaaaaaa" # WARNING: Literal secret
    LOG_LEVEL    = "debug"
  }
}

tool "weather" {
  description = "Current weather for a city."
  rest {
    url     = "https://api.weather.example/v1/{city}"
    headers = { Authorization = "Basic dXNlcjpwYXNz" } # WARNING: Literal secret
  }
  input_schema = { type = "object", properties = { city = { type = "string" } } }
}

agent "a" {
  tools { use = [tool.weather] }
}
