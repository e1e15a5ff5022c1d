# Imported by `toolgen import` from .mcp.json.
# No secret was copied from those files: the agent reads these variables when it runs.
#   API_BASE_URL
#   API_KEY
#   API_REGION
#   DEBUG
#   DOCS_TOKEN
#   EVENTS_API_KEY
#   HOME
#   PRIVATE_GOOG_API_KEY
#   PRIVATE_PASSWORD
#   PRIVATE_REQUEST_ID
#   SESSION_TOKEN

server "docs" {
  transport = "http"
  url       = "https://docs.example.com/mcp"
  headers = {
    Authorization = "Bearer ${env("DOCS_TOKEN")}"
    "X-Client"    = "toolgen"
  }
}

server "api" {
  transport = "http"
  url       = "${env("API_BASE_URL", "https://api.example.com")}/mcp"
  headers = {
    "X-API-Key" = env("API_KEY")
    "X-Region"  = env("API_REGION", "eu-west-1")
    "X-Session" = env("SESSION_TOKEN")
  }
}

server "events" {
  transport = "sse"
  url       = "https://events.example.com/sse?api_key=${env("EVENTS_API_KEY")}&region=eu"
}

server "memory" {
  transport = "stdio"
  command   = "npx"
  args      = ["-y", "@modelcontextprotocol/server-memory"]
  env = {
    MEMORY_FILE_PATH = "${env("HOME")}/memory.json"
    DEBUG            = env("DEBUG")
  }
}

server "sentry" {
  transport = "http"
  url       = "https://mcp.sentry.dev/mcp"
}

server "private" {
  transport = "http"
  url       = "https://bob:${env("PRIVATE_PASSWORD")}@private.example.com/mcp"
  headers = {
    "X-Goog-Api-Key" = env("PRIVATE_GOOG_API_KEY")
    "X-Request-Id"   = env("PRIVATE_REQUEST_ID")
    Accept           = "text/event-stream"
  }
}

server "ws-gateway" {
  transport = "ws"
  url       = "wss://gateway.example.com/mcp"
}

agent "assistant" {
  description = "The MCP servers of .mcp.json."
  tools {
    use = [server.docs, server.api, server.events, server.memory, server.sentry, server.private, server.ws-gateway]
  }
}
