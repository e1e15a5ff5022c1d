// Command conformance-agent serves the tools, prompts and resources the MCP conformance suite's
// server scenarios call; testdata/conformance/server.sh runs the suite
// against `conformance-agent serve --http`.
package main

//go:generate go tool toolgen generate -o ../../generated/conformance ./spec

import (
	"os"

	"github.com/toolgen-dev/toolgen/generated/conformance"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
)

func main() { os.Exit(agentcli.Main(conformance.Registry, os.Args[1:])) }
