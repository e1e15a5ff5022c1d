agent "coder" {
  description = "Writes and reviews code."
  tools {
    use     = [tool.read_file, server.github, bundle.web, "entities_*"]  # refs or globs over the pool  # WARNING: No matching tool
    allowed = ["read", "github__*", "tool_*", "mcp_*", "agent__researcher", "router__handoff-to"] # omitted: everything in use; runtime tools too
    aliases = { read = "read_file" }
  }
  discovery = true                # start with tool_find/describe/load/active; load on demand
  subagents = [agent.researcher]  # exposed as agent__researcher
  spawn     = false               # opt in to spawn_agents / list_available_agents
  router { destinations = [agent.reviewer] }              # exposes router__handoff-to
}

agent "researcher" {
  description = "Finds documentation and examples."
  tools {
    use = [server.docs, tool.weather, bundle.web]
  }
}

agent "reviewer" {
  description = "Reviews changes."
  tools {
    use = [bundle.files, tool.summarize]
  }
}
