# Imported by `toolgen import` from .cursor/mcp.json.
# No secret was copied from those files: the agent reads these variables when it runs.
#   DB_URL
#   HOME_DIR
#   NOTION_TOKEN
#   USERJOT_API_TOKEN

server "linear" {
  transport = "sse"
  url       = "https://mcp.linear.app/sse"
}

server "userjot" {
  transport = "http"
  url       = "https://api.userjot.com/v1/mcp"
  headers = {
    Authorization = "Bearer ${env("USERJOT_API_TOKEN")}"
  }
}

server "context7" {
  transport = "stdio"
  command   = "npx"
  args      = ["-y", "@upstash/context7-mcp", "--api-key", "<redacted>"]
}

server "notion" {
  transport = "http"
  url       = "https://mcp.notion.com/mcp"
  headers = {
    Authorization = "Bearer ${env("NOTION_TOKEN")}"
  }
}

server "db" {
  transport = "stdio"
  command   = "python"
  args      = ["-m", "db_mcp"]
  env = {
    DB_URL   = env("DB_URL")
    HOME_DIR = env("HOME_DIR")
  }
}

agent "assistant" {
  description = "The MCP servers of .cursor/mcp.json."
  tools {
    use = [server.linear, server.userjot, server.context7, server.notion, server.db]
  }
}
