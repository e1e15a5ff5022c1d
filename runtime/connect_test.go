package runtime

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Seed tool-orchestration, scenario "MCP server fails to start".
func TestMCPServerFailsToStart(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseServer, Name: "docs"}, {Kind: decl.UseTool, Name: "summarize"}}})
	f.conn.fail["docs"] = errors.New("exec: docs-server: not found")
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	e := ev.requireOne(t, EventServerFail, "server", "docs")
	if !strings.Contains(e.Attrs["error"], "not found") {
		t.Errorf("event %+v", e)
	}
	st := s.Servers()
	if len(st) != 2 || st[0].Name != "docs" || st[0].Health != HealthRed || st[0].Error == "" || st[1].Health != HealthGreen || st[1].Tools != 3 {
		t.Errorf("servers %+v", st)
	}
	mustOK(t, call(t, s, "github__search_code", `{}`))
	mustOK(t, call(t, s, "summarize", `{}`))
}

// Seed tool-orchestration: Missing server env.
func TestMissingServerEnv(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}})
	ev := &events{}
	opts := f.opts(ev)
	opts.Getenv = func(string) (string, bool) { return "", false }
	s := open(t, f.reg, "a", opts)
	e := ev.requireOne(t, EventServerFail, "server", "github")
	if !strings.Contains(e.Attrs["error"], "GITHUB_TOKEN") || !strings.Contains(e.Attrs["error"], `"github"`) {
		t.Errorf("error does not name server and variable: %q", e.Attrs["error"])
	}
	if len(poolNames(s)) != 0 {
		t.Errorf("tools of a failed server listed: %v", poolNames(s))
	}
	if r := call(t, s, "github__search_code", `{}`); r.OK || !strings.Contains(r.Error, "server github unavailable") {
		t.Errorf("result %+v", r)
	}
}

// Seed tool-orchestration, scenario "MCP health check".
func TestMCPHealthCheck(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	st := s.Servers()
	if len(st) != 1 || st[0].Health != HealthGreen {
		t.Fatalf("servers %+v", st)
	}
	// the health the connection reports is what Servers shows
	s.st.Load().ups["github"].up = healthUpstream{s.st.Load().ups["github"].up, HealthYellow}
	if st := s.Servers(); st[0].Health != HealthYellow {
		t.Errorf("servers %+v", st)
	}
}

type healthUpstream struct {
	Upstream
	h Health
}

func (u healthUpstream) Health() Health { return u.h }

// Seed tool-orchestration, scenario "MCP capabilities discovered".
func TestMCPCapabilitiesDiscovered(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "docs"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	// docs is not in the lock file: its tools come from tools/list alone
	if diff := cmp.Diff([]string{"docs__search_docs"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if out := mustOK(t, call(t, s, "docs__search_docs", `{"q":"x"}`)); out != `search_docs:{"q":"x"}` {
		t.Errorf("result %q", out)
	}
}

// switchableHealth lets a test move a connection between health states.
type switchableHealth struct {
	Upstream
	h *atomic.Value
}

func (u switchableHealth) Health() Health { return u.h.Load().(Health) }

type healthConnector struct {
	Connector
	h *atomic.Value
}

func (c healthConnector) Acquire(ctx context.Context, srv *decl.Server, getenv func(string) (string, bool)) (Upstream, error) {
	up, err := c.Connector.Acquire(ctx, srv, getenv)
	if err != nil {
		return nil, err
	}
	return switchableHealth{up, c.h}, nil
}

// Seed tool-orchestration: Mcphealth events.
func TestMCPHealthEvents(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}})
	f.reg.Servers[1].HealthInterval = time.Millisecond
	var h atomic.Value
	h.Store(HealthGreen)
	ev := &events{}
	opts := f.opts(ev)
	opts.Connector = healthConnector{f.conn, &h}
	s := open(t, f.reg, "a", opts)
	h.Store(HealthYellow)
	e := ev.waitFor(EventServerHealth, "server", "github", "health", "yellow")
	if e.Attrs["previous"] != "green" || e.Level != slog.LevelWarn {
		t.Errorf("event %+v", e)
	}
	if st := s.Servers(); st[0].Health != HealthYellow {
		t.Errorf("servers %+v", st)
	}
	h.Store(HealthGreen)
	ev.waitFor(EventServerHealth, "server", "github", "health", "green")
}

// Seed tool-orchestration: Mcpserver startup timeout.
func TestMCPServerStartupTimeout(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseServer, Name: "docs"}}})
	f.reg.Servers[0].StartupTimeout = 20 * time.Millisecond // docs
	ev := &events{}
	opts := f.opts(ev)
	opts.Connector = slowConnector{f.conn, "docs"}
	s := open(t, f.reg, "a", opts)
	e := ev.requireOne(t, EventServerFail, "server", "docs")
	if !strings.Contains(e.Attrs["error"], "deadline exceeded") {
		t.Errorf("event %+v", e)
	}
	if diff := cmp.Diff([]string{"github__get_file_contents", "github__get_file_history", "github__search_code"}, poolNames(s)); diff != "" {
		t.Errorf("the other server's tools (-want +got):\n%s", diff)
	}
}

// TestInstructionsOnlyWhenForwarded: both servers send instructions, but
// only github sets forward_instructions, so only its reach the host; docs'
// may speak of tools the agent's lists hide.
func TestInstructionsOnlyWhenForwarded(t *testing.T) {
	f := newFixture(decl.Agent{Name: "coder", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseServer, Name: "docs"}}})
	s := open(t, f.reg, "coder", f.opts(&events{}))
	mustOK(t, call(t, s, "github__search_code", `{"q":"x"}`))
	mustOK(t, call(t, s, "docs__search_docs", `{"q":"x"}`))
	if got := s.Instructions(); !slices.Equal(got, []string{"Use search_code before reading files."}) {
		t.Errorf("instructions %q, want github's only", got)
	}
}
