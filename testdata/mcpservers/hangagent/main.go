// Command hangagent is an agent binary for the acceptance tests: a
// hand-written Registry (what toolgen would generate) whose agent "both"
// uses two stdio servers, alpha and beta, run from the commands named by
// HANGAGENT_ALPHA and HANGAGENT_BETA (testdata/mcpservers/hang builds).
package main

import (
	"os"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func main() {
	reg := &runtime.Registry{
		Package:   "hangagent",
		Separator: "__",
		// The tool timeout is far beyond any test's patience: a call ends
		// because its server died, never because it timed out.
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Minute, StartupTimeout: 20 * time.Second, InitConcurrency: 2, MaxDepth: 1},
		Servers: []decl.Server{
			{Name: "alpha", Transport: "stdio", Command: os.Getenv("HANGAGENT_ALPHA"), Trusted: true},
			{Name: "beta", Transport: "stdio", Command: os.Getenv("HANGAGENT_BETA"), Trusted: true},
		},
		Agents: []decl.Agent{{Name: "both", Description: "Uses alpha and beta.",
			Use: []decl.Use{{Kind: decl.UseServer, Name: "alpha"}, {Kind: decl.UseServer, Name: "beta"}}}},
	}
	os.Exit(agentcli.Main(reg, os.Args[1:]))
}
