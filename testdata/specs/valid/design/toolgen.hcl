toolgen {
  package   = "devagent"          # Go package of the generated code
  separator = "__"                # server tools are exposed as <server>__<tool>
}

defaults {
  tool_timeout       = "30s"
  response_max_bytes = 100000     # larger outputs are spilled to disk and replaced by a handle
  startup_timeout    = "10s"
  max_depth          = 2          # sub-agent spawn depth
  context_budget     = 200000     # tokens of tool output one session may add
  init_concurrency   = 4          # MCP servers started in parallel
}
