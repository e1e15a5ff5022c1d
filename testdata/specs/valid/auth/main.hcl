# OAuth 2.1 to remote MCP servers: log in once with `./agent login SERVER`.

server "github" {
  url = "https://api.githubcopilot.com/mcp/"
  auth {
    client_id     = env("GITHUB_CLIENT_ID")
    client_secret = env("GITHUB_CLIENT_SECRET")
    scopes        = ["repo", "read:org"]
    issuer        = "https://github.com/login/oauth"
  }
}

server "linear" {
  url = "https://mcp.linear.app/mcp"
  auth {} # dynamic client registration, scopes from the server
}

server "reports" {
  transport = "sse"
  url       = env("REPORTS_URL")
  auth {
    mode             = "client_credentials"
    client_id        = "reports-agent"
    private_key_file = "/etc/agent/mcp-key.pem"
    signing_alg      = "ES256"
  }
}

server "jira" {
  url = "https://jira.example.com/mcp"
  auth {
    mode          = "enterprise"
    client_id     = env("JIRA_CLIENT_ID")
    idp_issuer    = "https://acme.okta.com"
    idp_client_id = env("OKTA_CLIENT_ID")
    id_token      = env("IDP_ID_TOKEN")
    redirect_uri  = "http://127.0.0.1:8765/callback"
  }
}

agent "work" {
  tools {
    use = [server.github, server.linear, server.reports, server.jira]
  }
}
