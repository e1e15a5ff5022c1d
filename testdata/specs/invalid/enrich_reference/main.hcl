toolgen {
  enrich {
    model = model.fats # ERROR: Unknown model
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
