bundle "files" {
  tools = [tool.read_file, tool.summarize]
}

bundle "everything_read" {
  mode        = "direct"
  server      = server.everything
  allow_tools = ["echo", "get-sum"]
}

bundle "web" {
  mode        = "meta"
  server      = server.scraper
  allow_tools = ["fetch_page"]
}

agent "coder" {
  description = "Writes and reviews code in the workspace."
  tools {
    use     = [tool.read_file, tool.write_file, tool.run_git, tool.summarize, server.everything, "weath*", runtime.agent__batch, runtime.output_read]
    allowed = ["read", "write_file", "run_git", "summarize", "everything__*", "tool_*", "mcp_call_tool", "agent__*", "router__handoff-to", "output_read"]
    aliases = { read = "read_file" }
  }
  discovery = true
  subagents = [agent.researcher]
  router { destinations = [agent.reviewer] }
}

# No discovery: everything allowed is callable from the start. Globs admit
# tools in use (summ*) and in allowed (everything__get-s*); everything else
# the agent uses is blocked, e.g. everything__get-tiny-image.
agent "maintainer" {
  description = "Maintains the workspace: files, git, text tools and the everything server."
  tools {
    use = [
      tool.read_file, tool.write_file, tool.run_git, tool.word_count, tool.numbered_lines,
      tool.fingerprint, tool.sleep, server.everything, "summ*",
      runtime.agent__batch, runtime.agent__final_report, runtime.agent__task_status, runtime.output_read,
    ]
    allowed = [
      "cat", "write_file", "run_git", "word_count", "numbered_lines", "fingerprint", "sleep",
      "summ*", "everything__echo", "everything__get-s*", "agent__*", "output_read",
    ]
    aliases = { cat = "read_file" }
  }
}

agent "researcher" {
  description = "Finds information on the web and in documents."
  tools {
    use = [bundle.web, tool.weather, tool.word_count]
  }
  spawn = true
}

agent "reviewer" {
  description = "Reviews changes."
  tools {
    use = [bundle.files, bundle.everything_read]
  }
}

workflow "release" {
  role "planner" {
    step "plan" { bundles = [bundle.files] }
    step "review" { bundles = [bundle.files, bundle.everything_read] }
  }
  role "writer" {
    step "draft" { bundles = [bundle.files, bundle.web] }
  }
}
