package main

import (
	"os"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// withApps adds the MCP Apps fixture server apps (TESTAGENT_APPS) and the
// agent viewer, which uses it: its tool's _meta.ui and its ui:// view
// resource must reach the host unchanged.
func withApps(reg *runtime.Registry) *runtime.Registry {
	bin := os.Getenv("TESTAGENT_APPS")
	if bin == "" {
		return reg
	}
	reg.Servers = append(reg.Servers, decl.Server{Name: "apps", Transport: "stdio", Command: bin, Trusted: true,
		StartupTimeout: 30 * time.Second})
	reg.Agents = append(reg.Agents, decl.Agent{Name: "viewer", Description: "Shows views of the MCP Apps server apps.",
		Use: []decl.Use{{Kind: decl.UseServer, Name: "apps"}}})
	return reg
}
