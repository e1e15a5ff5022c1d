// Command replicas-budgeted is the replicas agent (examples/replicas) with
// a context budget: the fleet test there runs 3 of it behind HAProxy and
// checks that a caller's budget of N tokens is never exceeded across them.
package main

//go:generate go tool toolgen generate -o ../../generated/replicasbudget ./spec

import (
	"os"

	"github.com/toolgen-dev/toolgen/generated/replicasbudget"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
)

func main() { os.Exit(agentcli.Main(replicasbudget.Registry, os.Args[1:])) }
