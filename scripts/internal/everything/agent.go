// Package everything is the agent the served-path benchmarks run
// (scripts/servedbench, scripts/httpbench): one agent, "gateway", that
// uses server-everything whole over stdio, the limits of a generated
// registry's defaults.
package everything

import (
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Registry is that agent's registry under package name pkg, node running
// server-everything's entry script.
func Registry(pkg, node, script string) *runtime.Registry {
	return &runtime.Registry{
		Package: pkg, Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 30 * time.Second,
			MaxDepth: 2, InitConcurrency: 4},
		Servers: []decl.Server{{Name: "everything", Transport: "stdio", Command: node,
			Args: []string{script, "stdio"}, Trusted: true, StartupTimeout: 30 * time.Second}},
		Agents: []decl.Agent{{Name: "gateway", Use: []decl.Use{{Kind: decl.UseServer, Name: "everything"}}}},
	}
}
