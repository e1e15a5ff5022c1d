model "fast" {
  provider = "opnai" # ERROR: Invalid provider
  name     = "gpt-4.1-mini"
  api_key  = "sk-proj-0123456789abcdef" # WARNING: Literal secret
}

model "local" {
  provider    = "openai"
  name        = "qwen3"
  base_url    = "https://user:hunter22@llm.example/v1" # WARNING: Literal secret
  temperature = 3 # ERROR: Invalid number
  max_tokens  = 0 # ERROR: Invalid number
  timeout     = "soon" # ERROR: Invalid duration
  headers     = { Authorization = "Bearer abcdef123456" } # WARNING: Literal secret
}

model "nameless" { # ERROR: Missing required argument
  provider = "anthropic"
}

model "bad_url" {
  provider = "openai"
  name     = "x"
  base_url = "localhost:11434" # ERROR: Invalid URL
}

agent "lead" {
  max_turns = 0 # ERROR: Invalid number
}

agent "writer" {
  model = agent.lead # ERROR: Invalid reference
}

agent "reader" {
  instructions = file("missing.md") # ERROR: Invalid function argument
}

model "defaulted" {
  provider = "openai"
  name     = env("MODEL_NAME", "gpt-4.1-mini")
  api_key  = env("OPENAI_API_KEY", "sk-proj-0123456789abcdef") # WARNING: Literal secret
}

model "blank" {
  provider = "openai"
  name     = "" # ERROR: Invalid value
}
