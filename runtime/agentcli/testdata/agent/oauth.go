package main

import (
	"os"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	_ "github.com/toolgen-dev/toolgen/runtime/oauth" // docs has an auth block: link the OAuth client
)

// withOAuth adds the OAuth-protected server docs (TESTAGENT_OAUTH_URL, a
// streamable HTTP endpoint behind a bearer check) and the agent reader,
// which uses it: the login tests'.
func withOAuth(reg *runtime.Registry) *runtime.Registry {
	if os.Getenv("TESTAGENT_OAUTH_URL") == "" {
		return reg
	}
	reg.Servers = append(reg.Servers, decl.Server{Name: "docs", Transport: "http", Trusted: true,
		URL:            decl.Value{{Env: "TESTAGENT_OAUTH_URL"}},
		Auth:           &decl.ServerAuth{Scopes: []string{"docs:read"}},
		StartupTimeout: 10 * time.Second, HealthInterval: 200 * time.Millisecond, HealthTimeout: 5 * time.Second})
	reg.Agents = append(reg.Agents, decl.Agent{Name: "reader", Description: "Reads the OAuth-protected docs server.",
		Use: []decl.Use{{Kind: decl.UseServer, Name: "docs"}}})
	return reg
}
