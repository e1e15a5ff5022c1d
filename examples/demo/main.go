// Command demo-agent is the demo agent binary: the agents declared in
// spec/*.hcl, served over MCP or driven from the command line.
package main

//go:generate go tool toolgen generate -o ../../generated/demo ./spec

import (
	"os"

	"github.com/toolgen-dev/toolgen/generated/demo"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
)

func main() { os.Exit(agentcli.Main(demo.Registry, os.Args[1:])) }
