# A replica agent with a context budget, for the fleet test that a
# caller's budget holds across replicas (examples/replicas). The budget is
# a spec-wide default, so it lives in its own spec: the worker agent of
# ../replicas/spec keeps running without one (its calls need no store).
toolgen {
  package = "replicasbudget"
  store   = "redis"
}

defaults {
  response_max_bytes = 1000 # larger outputs spill to the shared store
  context_budget     = 2000 # tokens of tool output per caller, across the fleet
}

tool "echo" {
  description = "Returns the text it is given, and the replica that answered."
  go          = "github.com/toolgen-dev/toolgen/examples/replicas/tools.Echo"
}

agent "capped" {
  description = "Echoes until its caller's context budget is spent."
  tools {
    use = [tool.echo]
  }
}
