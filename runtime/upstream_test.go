package runtime

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// buildEchoFixture builds testdata/mcpservers/echo, a go-sdk stdio server.
func buildEchoFixture(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "echo")
	if out, err := exec.Command("go", "build", "-o", bin, "../testdata/mcpservers/echo").CombinedOutput(); err != nil {
		t.Fatalf("building the echo fixture: %v\n%s", err, out)
	}
	return bin
}

func TestServerConfigResolvesEnv(t *testing.T) {
	srv := &decl.Server{
		Name: "docs", Transport: "http",
		URL:     decl.Value{{Lit: "https://docs.example/mcp?k="}, {Env: "DOCS_KEY"}},
		Headers: []decl.KeyValue{{Key: "Authorization", Value: decl.Value{{Lit: "Bearer "}, {Env: "DOCS_TOKEN"}}}},
		Env:     []decl.KeyValue{{Key: "MODE", Value: decl.Value{{Lit: "ro"}}}},
	}
	env := map[string]string{"DOCS_KEY": "k-123", "DOCS_TOKEN": "t-456"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cfg, err := ServerConfig(srv, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.URL != "https://docs.example/mcp?k=k-123" || cfg.Headers["Authorization"] != "Bearer t-456" || cfg.Env[0] != "MODE=ro" {
		t.Errorf("cfg = %+v", cfg)
	}
	if strings.Join(cfg.Redact, ",") != "k-123,t-456" {
		t.Errorf("redact = %v", cfg.Redact)
	}

	delete(env, "DOCS_TOKEN")
	_, err = ServerConfig(srv, getenv)
	if err == nil || !strings.Contains(err.Error(), `server "docs"`) || !strings.Contains(err.Error(), "DOCS_TOKEN") {
		t.Errorf("missing variable: err = %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "k-123") {
		t.Error("error leaks a secret")
	}
}

func TestMCPConnectorSession(t *testing.T) {
	bin := buildEchoFixture(t)
	m := mcpconn.NewManager(nil)
	defer m.Close()
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second, InitConcurrency: 2, MaxDepth: 1},
		Servers: []decl.Server{{Name: "echo", Transport: "stdio", Command: bin, Trusted: true,
			Args: []string{"-instructions", "Echo server."},
			Env:  []decl.KeyValue{{Key: "ECHO_TOKEN", Value: decl.Value{{Env: "ECHO_TOKEN"}}}}}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "echo"}}}},
	}
	getenv := func(k string) (string, bool) {
		if k == "ECHO_TOKEN" {
			return "secret-1", true
		}
		return "", false
	}
	ctx := context.Background()
	s, err := Open(ctx, reg, "a", Options{Connector: mcpConnector{m: m}, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.Call(ctx, "echo__echo", []byte(`{"text":"through a session"}`))
	if !r.OK || r.Result != "through a session" {
		t.Errorf("echo__echo = %+v", r)
	}
	if r := s.Call(ctx, "echo__fail", []byte(`{}`)); r.OK {
		t.Errorf("echo__fail = %+v, want an error result", r)
	}

	// The adapter directly: shared with the session's connection.
	up, err := mcpConnector{m: m}.Acquire(ctx, &reg.Servers[0], getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Release()
	if up.Instructions() != "Echo server." || up.Health() != HealthGreen || len(up.Tools()) != 4 {
		t.Errorf("instructions %q health %s tools %d", up.Instructions(), up.Health(), len(up.Tools()))
	}
	if &up.Tools()[0] != &up.Tools()[0] {
		t.Error("tool list converted on every call")
	}

	if _, err := (mcpConnector{m: m}).Acquire(ctx, &reg.Servers[0], func(string) (string, bool) { return "", false }); err == nil ||
		!strings.Contains(err.Error(), "ECHO_TOKEN") {
		t.Errorf("missing env: %v", err)
	}
}
