# Imported by `toolgen import` from .vscode/mcp.json.
# No secret was copied from those files: the agent reads these variables when it runs.
#   GITHUB_TOKEN
#   LOG_LEVEL
#   MISSING
#   PERPLEXITY_KEY
#   PORT

server "github" {
  transport = "http"
  url       = "https://api.githubcopilot.com/mcp/"
  headers = {
    Authorization = "Bearer ${env("GITHUB_TOKEN")}"
  }
}

server "perplexity" {
  transport = "stdio"
  command   = "npx"
  args      = ["-y", "server-perplexity-ask"]
  env = {
    PERPLEXITY_API_KEY = env("PERPLEXITY_KEY")
  }
}

server "fetch" {
  transport = "stdio"
  command   = "uvx"
  args      = ["mcp-server-fetch"]
}

server "my_local-server" {
  transport = "stdio"
  command   = "node"
  args      = ["$${workspaceFolder}/build/index.js"]
  env = {
    LOG   = env("LOG_LEVEL")
    OTHER = env("MISSING")
    PORT  = env("PORT")
  }
}

server "legacy" {
  transport = "sse"
  url       = "http://localhost:3001/sse"
}

agent "assistant" {
  description = "The MCP servers of .vscode/mcp.json."
  tools {
    use = [server.github, server.perplexity, server.fetch, server.my_local-server, server.legacy]
  }
}
