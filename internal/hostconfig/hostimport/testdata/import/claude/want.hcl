# Imported by `toolgen import` from claude_desktop_config.json.
# No secret was copied from those files: the agent reads these variables when it runs.
#   BRAVE_API_KEY
#   GITHUB_PERSONAL_ACCESS_TOKEN

server "filesystem" {
  transport = "stdio"
  command   = "npx"
  args      = ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
}

server "github" {
  transport = "stdio"
  command   = "npx"
  args      = ["-y", "@modelcontextprotocol/server-github"]
  env = {
    GITHUB_PERSONAL_ACCESS_TOKEN = env("GITHUB_PERSONAL_ACCESS_TOKEN")
  }
}

server "postgres" {
  transport = "stdio"
  command   = "npx"
  args      = ["-y", "@modelcontextprotocol/server-postgres", "postgresql://admin:<redacted>@localhost/mydb"]
}

server "brave_search" {
  transport = "stdio"
  command   = "npx"
  args      = ["-y", "@modelcontextprotocol/server-brave-search"]
  env = {
    BRAVE_API_KEY = env("BRAVE_API_KEY")
  }
}

server "mcp_agent" {
  transport = "stdio"
  command   = "uvx"
  args      = ["mcp-agent", "--token=<redacted>"]
}

agent "assistant" {
  description = "The MCP servers of claude_desktop_config.json."
  tools {
    use = [server.filesystem, server.github, server.postgres, server.brave_search, server.mcp_agent]
  }
}
