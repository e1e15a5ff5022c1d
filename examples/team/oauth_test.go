package main_test

import (
	"os"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/mcpauth/authtest"
)

// The spec's docs server has an auth block, so the generated registry
// links the OAuth client: the binary gets a client-credentials token from
// a real authorization server on loopback and calls the protected
// server's tool with it; the secret stays out of what it prints.
func TestDocsServerThroughOAuth(t *testing.T) {
	as := authtest.NewServer(t, &authtest.Clock{}, "docs:read")
	url := authtest.Protected(t, as, "docs:read")
	id, secret := as.PreRegister()
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir(), "TOOLGEN_LOG=warn",
		"TEAM_DOCS_URL=" + url, "TEAM_DOCS_CLIENT_ID=" + id, "TEAM_DOCS_CLIENT_SECRET=" + secret}
	r := runTeam(t, environ, "call", "--agent", "librarian", "docs__whoami", "{}")
	if r.code != 0 || !strings.Contains(r.stdout, "user alice") {
		t.Fatalf("call docs__whoami: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if n := as.Count("client_credentials"); n < 1 {
		t.Errorf("client credentials grants: %d, want at least 1", n)
	}
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Error("the client secret is in the binary's output")
	}

	// A wrong secret: the server stays red with the authorization
	// server's refusal, the secret nowhere in it.
	environ[len(environ)-1] = "TEAM_DOCS_CLIENT_SECRET=wrong-secret-value-0123"
	r = runTeam(t, environ, "call", "--agent", "librarian", "docs__whoami", "{}")
	if r.code == 0 {
		t.Fatalf("call with a wrong client secret succeeded: %s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, "wrong-secret-value-0123") {
		t.Errorf("the wrong secret is in the output:\n%s", r.stderr)
	}
}
