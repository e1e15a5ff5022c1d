# The agent of deploy/ and of the replica tests (examples/replicas): run
# as several copies behind a load balancer, sharing one store.
toolgen {
  package = "replicas"
  store   = "redis" # the generated registry links the Redis store for serve --store
}

defaults {
  response_max_bytes = 1000 # larger outputs spill to the shared store
}

tool "echo" {
  description = "Returns the text it is given, and the replica that answered."
  go          = "github.com/toolgen-dev/toolgen/examples/replicas/tools.Echo"
}

tool "report" {
  description = "Writes a report of the given number of numbered lines (large ones spill; read them with output_read)."
  go          = "github.com/toolgen-dev/toolgen/examples/replicas/tools.Report"
}

tool "wait" {
  description = "Waits the given milliseconds (at most 5000), then answers."
  go          = "github.com/toolgen-dev/toolgen/examples/replicas/tools.Wait"
}

tool "ask" {
  description = "Asks the host for a name, then for a confirmation, and greets: two input-required rounds."
  go          = "github.com/toolgen-dev/toolgen/examples/replicas/tools.Ask"
}

tool "job" {
  description = "Works the given milliseconds (at most 120000), then answers; runs as an MCP task for hosts with the Tasks extension."
  go          = "github.com/toolgen-dev/toolgen/examples/replicas/tools.Job"
  task        = "optional"
}

agent "worker" {
  description = "Echoes, writes reports and waits: the calls a fleet of replicas serves."
  tools {
    use = [tool.echo, tool.report, tool.wait, tool.ask, tool.job, runtime.output_read]
  }
}
