# An untrusted server takes exact tool names: a glob would let it add tools
# the spec never named. deny_tools may keep globs (denying more is safe).
server "scraper" {
  url         = "https://scraper.example.com/mcp"
  trust       = "untrusted"
  allow_tools = ["fetch_page", "get_*"] # ERROR: Untrusted server with glob
  deny_tools  = ["*_admin"]
}

# Without a lock entry there is nothing to suggest.
server "crawler" {
  url         = "https://crawler.example.com/mcp"
  trust       = "untrusted"
  allow_tools = ["*"] # ERROR: Untrusted server with glob
}

server "search" {
  url         = "https://search.example.com/mcp"
  trust       = "untrusted"
  allow_tools = ["query", "suggest"]
}

# A bundle of an untrusted server takes exact names too.
bundle "web" {
  mode        = "meta"
  server      = server.scraper
  allow_tools = ["fetch_page"]
}

bundle "search_all" {
  mode        = "meta"
  server      = server.search
  allow_tools = ["qu?ry", "sugg[e]st"] # ERROR: Untrusted server with glob # ERROR: Untrusted server with glob
}

# A trusted server keeps its globs.
server "github" {
  command     = "npx"
  allow_tools = ["get_*"]
}
