server "scraper" {
  url         = "https://scraper.example.com/mcp"
  trust       = "untrusted"
  allow_tools = ["fetch_page"]
}

bundle "web" {
  mode   = "direct" # ERROR: Untrusted server in direct bundle
  server = server.scraper
}

bundle "web_default" {
  server = server.scraper # ERROR: Untrusted server in direct bundle
}

agent "a" {
  tools {
    use = [server.scraper] # ERROR: Untrusted server used directly
  }
}
