toolgen {
  enrich {
    model       = model.fast
    queries     = 40 # ERROR: Invalid number
    concurrency = 0 # ERROR: Invalid number
  }
  enrich { # ERROR: Duplicate enrich block
    model = model.fast
  }
}

model "fast" {
  provider = "openai"
  name     = "gpt-4.1-mini"
  api_key  = env("OPENAI_API_KEY")
}

agent "a" {
  model = model.fast
}
