# Imported by `toolgen import` from claude_desktop_config.json, .cursor/mcp.json.
# No secret was copied from those files: the agent reads these variables when it runs.
#   API_KEY
#   API_KEY_USER_API_KEY
#   API_KEY_USER_API_KEY_2
#   GITHUB_TOKEN

server "github" {
  transport = "stdio"
  command   = "npx"
  args      = ["-y", "@modelcontextprotocol/server-github"]
  env = {
    GITHUB_TOKEN = env("GITHUB_TOKEN")
  }
}

server "my-server" {
  transport = "stdio"
  command   = "my-server"
}

server "API_KEY_USER" {
  transport = "stdio"
  command   = "svc"
  env = {
    API_KEY = env("API_KEY_USER_API_KEY")
  }
}

server "my_server-2" {
  transport = "stdio"
  command   = "other-server"
}

server "api-key-user" {
  transport = "stdio"
  command   = "svc2"
  env = {
    API_KEY = env("API_KEY_USER_API_KEY_2")
  }
}

server "reader" {
  transport = "stdio"
  command   = "svc3"
  env = {
    API_KEY = env("API_KEY")
  }
}

agent "assistant" {
  description = "The MCP servers of claude_desktop_config.json, .cursor/mcp.json."
  tools {
    use = [server.github, server.my-server, server.API_KEY_USER, server.my_server-2, server.api-key-user, server.reader]
  }
}
