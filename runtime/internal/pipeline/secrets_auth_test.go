package pipeline

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// The auth block's env() values (client secret, ID token …) are scrubbed
// like the other secrets a server declares.
func TestSecretsScrubAuthValues(t *testing.T) {
	env := map[string]string{"CS": "client-secret-value-1", "IDT": "id-token-value-123", "CID": "client-id-value-9"}
	reg := &decl.Registry{Servers: []decl.Server{{Name: "gh", Transport: "http", URL: decl.Value{{Lit: "https://gh.example/mcp"}},
		Auth: &decl.ServerAuth{ClientID: decl.Value{{Env: "CID"}}, ClientSecret: decl.Value{{Env: "CS"}}, IDToken: decl.Value{{Env: "IDT"}}}}}}
	r := Secrets(reg, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, slog.New(slog.DiscardHandler), false)
	if r == nil {
		t.Fatal("no scrubber for a server whose auth block reads env()")
	}
	got := r.String("secret client-secret-value-1, token id-token-value-123, id client-id-value-9")
	for _, v := range env {
		if strings.Contains(got, v) {
			t.Errorf("%q not scrubbed: %s", v, got)
		}
	}
}
