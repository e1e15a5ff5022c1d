model "fast" {
  provider = "openai"
  name     = "gpt-4.1-mini"
  api_key  = env("OPENAI_API_KEY")
}

model "fast" { # ERROR: Duplicate model
  provider = "anthropic"
  name     = "claude-sonnet-4-5"
}

defaults {
  model = model.fsat # ERROR: Unknown model
}

agent "lead" {
  model        = model.fats # ERROR: Unknown model
  instructions = "You plan."
  subagents    = [agent.helper]
  spawn        = true
}

agent "helper" { # WARNING: Agent without model
}
