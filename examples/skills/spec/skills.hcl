# The skills example (examples/skills): an agent with a skill, served over
# MCP with the Skills extension (skills/list, skills/get, skill:// resources)
# and loaded by the agent's own loop when the model asks for it. Run from
# the repository root.
toolgen {
  package = "skills"
}

# OpenAI, or any server that speaks Chat Completions (OPENAI_BASE_URL).
model "gpt" {
  provider = "openai"
  name     = env("OPENAI_MODEL", "gpt-4.1-mini")
  base_url = env("OPENAI_BASE_URL")
  api_key  = env("OPENAI_API_KEY")
}

defaults {
  model = model.gpt
}

policy "workspace_read" {
  builtin       = "fs_read"
  allowed_paths = ["./examples/skills/workspace"]
}

tool "read_file" {
  description = "Read a UTF-8 text file from the workspace."
  policy      = policy.workspace_read
}

# A skill is a directory with a SKILL.md (YAML frontmatter: name,
# description) and the files it points to. toolgen reads it at generate
# time, checks the frontmatter, records each file's size and SHA-256 and
# compiles the files into the generated package (skills_gen.go).
skill "release-notes" {
  dir = "skills/release-notes"
}

agent "writer" {
  description  = "Writes release notes from the workspace's change log."
  instructions = "You write release notes. Read the change log with read_file."
  tools {
    use = [tool.read_file, skill.release-notes]
  }
}
