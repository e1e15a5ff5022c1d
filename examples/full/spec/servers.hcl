queue "everything" { concurrent = 2 }

# The MCP reference server, pinned in testdata/npm; its tools are recorded
# in toolgen.lock.json.
server "everything" {
  transport   = "stdio"
  command     = "npx"
  args        = ["-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"]
  env         = { EVERYTHING_TOKEN = env("EVERYTHING_TOKEN") }
  allow_tools = ["echo", "get-*"]
  deny_tools  = ["get-env"]
  queue       = queue.everything
  timeout     = "20s"
  cache       = "5m"
  health_check {
    interval = "15s"
    timeout  = "3s"
  }
}

# An untrusted scraper: reachable only through a meta bundle.
server "scraper" {
  transport   = "http"
  url         = "https://scraper.example.com/mcp"
  headers     = { Authorization = "Bearer ${env("SCRAPER_TOKEN")}" }
  trust       = "untrusted"
  allow_tools = ["fetch_page"]
}
