server "stdio" {
  command = "mcp-server"
  auth {} # ERROR: Auth block not used by transport
}

server "both" {
  url     = "https://both.example.com/mcp"
  headers = { Authorization = "Bearer ${env("TOKEN")}" } # ERROR: Conflicting authorization
  auth {}
}

server "literal" {
  url = "https://literal.example.com/mcp"
  auth {
    client_id     = "agent"
    client_secret = "s3cr3t-s3cr3t" # ERROR: Literal secret
  }
}

server "typo" {
  url = "https://typo.example.com/mcp"
  auth {
    mode   = "oauth2"            # ERROR: Unknown auth mode
    scope  = ["read:org"]        # ERROR: Unsupported argument
  }
}

server "cc" {
  url = "https://cc.example.com/mcp"
  auth { # ERROR: Missing client_id
    mode         = "client_credentials"
    redirect_uri = "https://app.example.com/cb" # ERROR: Attribute not used by this mode # ERROR: Invalid redirect URI
  }
}

server "ent" {
  url = "https://ent.example.com/mcp"
  auth { # ERROR: Missing identity provider
    mode          = "enterprise"
    client_id     = env("ENT_CLIENT")
    idp_client_id = env("IDP_CLIENT")
  }
}

server "bad_values" {
  url = "https://bad.example.com/mcp"
  auth {
    client_metadata_url = "http://agent.example/client.json" # ERROR: Invalid client metadata URL
    redirect_uri        = "http://10.0.0.1/cb"                # ERROR: Invalid redirect URI
    scopes              = ["read write"]                      # ERROR: Invalid scope
    issuer              = "https://as.example.com"            # ERROR: Issuer without a client
  }
}
