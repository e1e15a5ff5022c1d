server "scraper" {
  url   = "https://scraper.example.com/mcp"
  trust = "untrusted" # ERROR: Untrusted server without allow_tools
}

server "other" {
  url   = "https://other.example.com/mcp"
  trust = "untrustd" # ERROR: Invalid trust level
}
