# The team example (examples/team): agents that run on a model inside the
# binary. Run from the repository root; set the key of the provider you use.
toolgen {
  package = "team"
  # Link the OpenTelemetry SDK: /metrics on the status page, OTLP over
  # HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  telemetry = true
}

# OpenAI, or any server that speaks Chat Completions: for a local Ollama set
# OPENAI_BASE_URL=http://localhost:11434/v1, OPENAI_API_KEY=ollama (any
# value) and OPENAI_MODEL=qwen3 (a model you pulled). base_url unset: OpenAI.
model "gpt" {
  provider = "openai"
  name     = env("OPENAI_MODEL", "gpt-4.1-mini")
  base_url = env("OPENAI_BASE_URL")
  api_key  = env("OPENAI_API_KEY")
}

# Anthropic's Messages API; base_url is the host root (unset: Anthropic).
model "claude" {
  provider   = "anthropic"
  name       = env("ANTHROPIC_MODEL", "claude-sonnet-4-5")
  base_url   = env("ANTHROPIC_BASE_URL")
  api_key    = env("ANTHROPIC_API_KEY")
  max_tokens = 4096
}

defaults {
  model = model.gpt
}

policy "workspace_read" {
  builtin       = "fs_read"
  allowed_paths = ["./examples/team/workspace"]
}

policy "commands" {
  builtin          = "shell_exec"
  allowed_commands = ["ls"]
  timeout          = "10s"
}

tool "read_file" {
  description = "Read a UTF-8 text file from the team workspace (examples/team/workspace)."
  policy      = policy.workspace_read
}

tool "list_files" {
  description = "Run ls with arguments, without a shell."
  policy      = policy.commands
}

# The lead plans and delegates: it reads nothing itself. It can ask the
# reader (agent__reader), run several readers at once (spawn_agents), and
# hand the conversation to the writer (router__handoff-to).
agent "lead" {
  description  = "Plans, delegates reading to the reader, and answers."
  instructions = file("lead.md")
  max_turns    = 12
  subagents    = [agent.reader]
  spawn        = true
  router {
    destinations = [agent.writer]
  }
}

# The reader reads files. list_files is in use but not allowed: a model
# that calls it gets a blocked result and goes on.
agent "reader" {
  description  = "Reads files of the team workspace and reports what they say."
  instructions = "You read files of the team workspace with read_file (paths such as examples/team/workspace/notes.md) and report what they say, briefly and exactly."
  tools {
    use     = [tool.read_file, tool.list_files]
    allowed = [tool.read_file]
  }
}

# The writer takes over a conversation and writes the final text.
agent "writer" {
  description  = "Writes release notes from what the conversation found."
  instructions = "You write short, plain release notes from the conversation so far."
}

# The same lead and reader on Anthropic.
agent "lead_claude" {
  description  = "The lead, on Claude."
  model        = model.claude
  instructions = file("lead.md")
  max_turns    = 12
  subagents    = [agent.reader_claude]
}

agent "reader_claude" {
  description  = "The reader, on Claude."
  model        = model.claude
  instructions = "You read files of the team workspace with read_file (paths such as examples/team/workspace/notes.md) and report what they say, briefly and exactly."
  tools {
    use = [tool.read_file]
  }
}

# A remote MCP server behind OAuth: the agent authenticates as itself
# (client credentials) with the id and secret from the environment. An
# auth block links the OAuth client (runtime/oauth) into the binary.
server "docs" {
  url = env("TEAM_DOCS_URL")
  auth {
    mode          = "client_credentials"
    client_id     = env("TEAM_DOCS_CLIENT_ID")
    client_secret = env("TEAM_DOCS_CLIENT_SECRET")
  }
}

# The librarian answers from the docs server.
agent "librarian" {
  description  = "Looks things up on the team's docs server."
  instructions = "You answer questions with the tools of the docs server, briefly."
  tools {
    use = [server.docs]
  }
}
