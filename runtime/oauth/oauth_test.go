package oauth_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/oauthlink"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	_ "github.com/toolgen-dev/toolgen/runtime/oauth"
)

// Importing the package links the OAuth client: a server's auth block
// gets the process's one handler (mcpauth's), with the env() values it
// read handed back for the redactor, and a bad value is an error.
func TestImportLinksTheClient(t *testing.T) {
	c, ok := oauthlink.Linked()
	if !ok {
		t.Fatal("importing runtime/oauth registered no client")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	env := map[string]string{"CS": "client-secret-value-1"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	srv := &decl.Server{Name: "docs", Transport: "http", Auth: &decl.ServerAuth{Mode: mcpauth.ModeClientCredentials,
		ClientID: decl.Value{{Lit: "agent"}}, ClientSecret: decl.Value{{Env: "CS"}}}}
	log := slog.New(slog.DiscardHandler)
	h, secrets, err := c.Handler(oauthlink.Server{Decl: srv, URL: "https://docs.example/mcp", Getenv: getenv, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if _, isMcpauth := h.(*mcpauth.Handler); !isMcpauth {
		t.Errorf("handler is %T, want *mcpauth.Handler", h)
	}
	if len(secrets) != 1 || secrets[0] != "client-secret-value-1" {
		t.Errorf("secrets = %q, want the client secret", secrets)
	}
	again, _, err := c.Handler(oauthlink.Server{Decl: srv, URL: "https://docs.example/mcp", Getenv: getenv, Log: log})
	if err != nil || again != h {
		t.Errorf("a second connection got another handler (%v): one per process is shared", err)
	}
	delete(env, "CS")
	if _, _, err := c.Handler(oauthlink.Server{Decl: srv, URL: "https://docs.example/mcp", Getenv: getenv}); err == nil || !strings.Contains(err.Error(), "auth.client_secret") {
		t.Errorf("unset client_secret: %v", err)
	}
}
