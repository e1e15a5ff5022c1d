queue "everything" { concurrent = 2 }
queue "fingerprint" { concurrent = 2 }

# The MCP reference server, pinned in testdata/npm (`make npm`) and run with
# the Node it installs, from the repository root; its tools are recorded in
# toolgen.lock.json.
server "everything" {
  transport   = "stdio"
  command     = "testdata/npm/node_modules/.bin/node"
  args        = ["testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"]
  env         = { EVERYTHING_TOKEN = env("EVERYTHING_TOKEN") }
  allow_tools = ["echo", "get-*"]
  deny_tools  = ["get-env"]
  # server-everything's instructions describe its tools; pass them to the host
  forward_instructions = true
  queue                = queue.everything
  timeout              = "20s"
  cache                = "5m"
  health_check {
    interval = "15s"
    timeout  = "3s"
  }
}

# An untrusted scraper: reachable only through a meta bundle.
server "scraper" {
  transport   = "http"
  url         = "${env("SCRAPER_URL")}/mcp"
  headers     = { Authorization = "Bearer ${env("SCRAPER_TOKEN")}" }
  trust       = "untrusted"
  allow_tools = ["fetch_page"]
}
