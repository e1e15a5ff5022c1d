defaults {
  tool_timeout       = "30" # ERROR: Invalid duration
  response_max_bytes = 0    # ERROR: Invalid number
  max_depth          = 1.5  # ERROR: Invalid number
  init_concurrency   = "four" # ERROR: Invalid number
}

queue "q" { concurrent = 0 } # ERROR: Invalid number

server "s" {
  command          = "npx"
  timeout          = "soon" # ERROR: Invalid duration
  protocol_version = "latest" # ERROR: Invalid protocol version
  health_check {
    interval = "5s"
    timeout  = "10s" # ERROR: Invalid health check
  }
}

agent "a" {
  discovery = "yes please" # ERROR: Invalid value
}

bundle "b" {
  mode   = "lazy" # ERROR: Invalid bundle mode
  server = server.s
}

tool "t" {
  rest {
    method = "FETCH" # ERROR: Invalid HTTP method
    url    = "https://example.com/{city" # ERROR: Invalid URL template
  }
}
