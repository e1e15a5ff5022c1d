package cmd

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/internal/mcpauth/authtest"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// toolgen lock on an OAuth-protected server: without a login it fails and
// says --login logs in; lockLogins (lock --login) logs in through the
// browser flow into the agents' store, and the lock then lists the tools.
func TestLockLogin(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	as := authtest.NewServer(t, &authtest.Clock{}, "docs:read")
	url := authtest.Protected(t, as, "docs:read")
	dir := t.TempDir()
	spec := `server "docs" {
  url = env("LOCK_DOCS_URL")
  auth { scopes = ["docs:read"] }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, diags := spechcl.LoadDir(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	getenv := func(k string) (string, bool) {
		if k == "LOCK_DOCS_URL" {
			return url, true
		}
		return "", false
	}
	m := mcpconn.NewManager(slog.New(slog.DiscardHandler))
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list := listTools(m, 10*time.Second, getenv)

	if _, err := list(ctx, s.Servers[0]); err == nil || !strings.Contains(err.Error(), "toolgen lock --login") {
		t.Fatalf("before login: %v, want the --login hint", err)
	}
	var out bytes.Buffer
	if err := lockLogins(ctx, s, getenv, authtest.Browse(t), &out); err != nil {
		t.Fatalf("login: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `Logged in to server "docs"`) {
		t.Fatalf("login output:\n%s", out.String())
	}
	m2 := mcpconn.NewManager(slog.New(slog.DiscardHandler)) // a fresh connection, on the stored token
	defer m2.Close()
	tools, err := listTools(m2, 10*time.Second, getenv)(ctx, s.Servers[0])
	if err != nil || len(tools) != 1 || tools[0].Name != "whoami" {
		t.Fatalf("after login: %v %+v", err, tools)
	}
	// A second --login finds the stored login and asks nothing.
	codes := as.Count("code")
	if err := lockLogins(ctx, s, getenv, func(string) error { t.Error("opened a browser again"); return nil }, &out); err != nil {
		t.Fatal(err)
	}
	if as.Count("code") != codes {
		t.Error("logged in again")
	}
}
