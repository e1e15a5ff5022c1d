package agentcli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// `AGENT login SERVER` in a binary without the OAuth client (this test
// binary links none) fails saying what to import, before any browser.
func TestLoginOAuthNotLinked(t *testing.T) {
	reg := &runtime.Registry{Package: "lean", Separator: "__",
		Servers: []decl.Server{{Name: "docs", Transport: "http", URL: decl.Value{{Lit: "https://docs.example/mcp"}}, Auth: &decl.ServerAuth{}}}}
	for _, cmd := range []string{"login", "logout"} {
		var stdout, stderr bytes.Buffer
		code := agentcli.Run(context.Background(), reg, []string{cmd, "docs"}, agentcli.Options{
			Stdout: &stdout, Stderr: &stderr, Getenv: func(string) (string, bool) { return "", false }})
		if code == 0 {
			t.Fatalf("%s without the OAuth client exited 0\n%s", cmd, &stderr)
		}
		for _, want := range []string{`server "docs" has an auth block`, "OAuth client is not linked", `import _ "github.com/toolgen-dev/toolgen/runtime/oauth"`} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s: stderr does not say %q:\n%s", cmd, want, &stderr)
			}
		}
	}
}

// `serve --http --auth-issuer` in a binary without runtime/serve/jwtauth
// (this test binary links none) refuses to start, saying what to import,
// before it reads the issuer's keys; a bearer token needs nothing linked.
func TestServeJWTNotLinked(t *testing.T) {
	reg := &runtime.Registry{Package: "lean", Separator: "__", Agents: []decl.Agent{{Name: "lean", Description: "Nothing."}}}
	var stdout, stderr bytes.Buffer
	code := agentcli.Run(context.Background(), reg, []string{"serve", "--http", "127.0.0.1:0",
		"--auth-issuer", "http://127.0.0.1:1", "--auth-audience", "http://127.0.0.1:8080/mcp"}, agentcli.Options{
		Stdout: &stdout, Stderr: &stderr, Getenv: func(string) (string, bool) { return "", false }})
	if code == 0 {
		t.Fatalf("serve --auth-issuer without the JWT verifier exited 0\n%s", &stderr)
	}
	for _, want := range []string{"--auth-issuer", "JWT access-token verifier is not linked", `import _ "github.com/toolgen-dev/toolgen/runtime/serve/jwtauth"`, "--auth-token-env"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, &stderr)
		}
	}
	if strings.Contains(stderr.String(), "127.0.0.1:1/") {
		t.Errorf("the issuer was asked for its keys:\n%s", &stderr)
	}
}
