package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/internal/oauthlink"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A server with an auth block in a binary without runtime/oauth (this
// test binary links none) does not connect unauthenticated: it fails
// saying what to import. A server without auth needs nothing.
func TestServerOAuthNotLinked(t *testing.T) {
	if _, ok := oauthlink.Linked(); ok {
		t.Fatal("the runtime's tests link the OAuth client; this test needs a binary without it")
	}
	cfg := &mcpconn.Config{Name: "docs", Transport: mcpconn.TransportHTTP, URL: "https://docs.example/mcp"}
	err := serverOAuth(&decl.Server{Name: "docs", Transport: "http", Auth: &decl.ServerAuth{Scopes: []string{"docs:read"}}}, cfg, nil, nil, nil)
	if !errors.Is(err, oauthlink.ErrNotLinked) {
		t.Fatalf("serverOAuth = %v, want ErrNotLinked", err)
	}
	for _, want := range []string{`server "docs" has an auth block`, "not linked", `import _ "github.com/toolgen-dev/toolgen/runtime/oauth"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if cfg.OAuth != nil {
		t.Error("the server got an OAuth handler")
	}
	if err := serverOAuth(&decl.Server{Name: "plain", Transport: "http"}, cfg, nil, nil, nil); err != nil {
		t.Errorf("a server without auth: %v", err)
	}
}
