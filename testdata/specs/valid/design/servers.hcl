queue "github" { concurrent = 3 }

server "github" {
  transport   = "stdio"                                   # stdio | http | sse | ws | tcp
  command     = "npx"
  args        = ["-y", "@modelcontextprotocol/server-github"]
  env         = { GITHUB_TOKEN = env("GITHUB_TOKEN") }     # read when the binary runs, never baked in
  trust       = "trusted"                                 # trusted | untrusted
  allow_tools = ["search_code", "get_file_*"]
  deny_tools  = ["delete_repo"]
  queue       = queue.github
  timeout     = "20s"
  cache       = "5m"                                      # response cache TTL
  health_check {
    interval = "15s"
    timeout  = "3s"
  }
}

server "docs" {
  transport = "http"                                      # url for http | sse | ws; address for tcp
  url       = "https://docs.example.com/mcp"
  headers   = { Authorization = "Bearer ${env("DOCS_TOKEN")}" }
}

server "scraper" {
  transport   = "sse"
  url         = "https://scraper.example.com/sse"
  trust       = "untrusted"
  allow_tools = ["fetch_page"]
}
