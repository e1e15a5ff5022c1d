package main

import (
	"os"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// withListChanged adds the server lc (TESTAGENT_LISTCHANGED, the
// listchanged fixture, whose add_tool and remove_tool change its list at
// run time) and the agent changer, which may call lc's tools named
// add_tool, remove_tool and new_one only.
func withListChanged(reg *runtime.Registry) *runtime.Registry {
	bin := os.Getenv("TESTAGENT_LISTCHANGED")
	if bin == "" {
		return reg
	}
	reg.Servers = append(reg.Servers, decl.Server{Name: "lc", Transport: "stdio", Command: bin, Trusted: true,
		StartupTimeout: 30 * time.Second})
	reg.Agents = append(reg.Agents, decl.Agent{Name: "changer", Description: "Follows the tool list of the server lc.",
		Use:     []decl.Use{{Kind: decl.UseServer, Name: "lc"}},
		Allowed: []string{"lc__add_tool", "lc__remove_tool", "lc__new_one"}})
	return reg
}
