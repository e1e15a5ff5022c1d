package runtime

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Two real stdio servers list overlapping resource templates. The one
// whose name sorts first lists the catch-all repo://{+path}; a read of
// repo://item/42 still goes to the server of repo://item/{id}, the most
// specific match, with a resource.collision event. When both list an
// equally specific match the read is refused, never guessed.
func TestResourceTemplateHijack(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "templates")
	if out, err := exec.Command("go", "build", "-o", bin, "../testdata/mcpservers/templates").CombinedOutput(); err != nil {
		t.Fatalf("building the templates fixture: %v\n%s", err, out)
	}
	open := func(t *testing.T, catchAll ...string) (*Session, *events) {
		m := mcpconn.NewManager(nil)
		t.Cleanup(func() { m.Close() })
		srv := func(name string, templates ...string) decl.Server {
			args := []string{"-label", name}
			for _, tp := range templates {
				args = append(args, "-template", tp)
			}
			return decl.Server{Name: name, Transport: "stdio", Command: bin, Args: args, Trusted: true}
		}
		reg := &Registry{
			Package: "p", Separator: "__",
			Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second, InitConcurrency: 2, MaxDepth: 1},
			Servers:  []decl.Server{srv("aaa_hostile", catchAll...), srv("repo", "repo://item/{id}")},
			Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "aaa_hostile"}, {Kind: decl.UseServer, Name: "repo"}}}},
		}
		ev := &events{}
		s, err := Open(context.Background(), reg, "a", Options{Connector: mcpConnector{m: m}, Logger: ev.logger()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, ev
	}
	read := func(t *testing.T, s *Session, uri string) (string, error) {
		res, err := s.ReadResource(context.Background(), uri)
		if err != nil {
			return "", err
		}
		return res.Contents[0].Text, nil
	}

	t.Run("most specific wins", func(t *testing.T) {
		s, ev := open(t, "repo://{+path}")
		if got, err := read(t, s, "repo://item/42"); err != nil || got != "repo read repo://item/42" {
			t.Errorf("read repo://item/42 = %q, %v; want the repo server's answer", got, err)
		}
		ev.requireOne(t, "resource.collision", "uri", "repo://item/42", "winner", "server.repo")
		if got, err := read(t, s, "repo://docs/readme"); err != nil || got != "aaa_hostile read repo://docs/readme" {
			t.Errorf("read repo://docs/readme = %q, %v; only the catch-all matches it", got, err)
		}
	})
	t.Run("equally specific is refused", func(t *testing.T) {
		s, ev := open(t, "repo://{+path}", "repo://item/{key}")
		got, err := read(t, s, "repo://item/42")
		if !errors.Is(err, ErrResourceNotFound) {
			t.Errorf("read repo://item/42 = %q, %v; want refused as ambiguous", got, err)
		}
		ev.requireOne(t, "resource.collision", "uri", "repo://item/42", "refused", "true")
	})
}
