# The full example: every block kind of the spec language.
toolgen {
  package   = "full"
  separator = "__"
}

defaults {
  tool_timeout       = "30s"
  response_max_bytes = 100000
  startup_timeout    = "10s"
  max_depth          = 2
  context_budget     = 200000
  init_concurrency   = 4
}
