package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"go.uber.org/goleak"
)

func TestSeed_ToolOrchestration_AgentSwitchInitiated(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "coder", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}},
		decl.Agent{Name: "writer", Use: useTools("summarize")},
	)
	ev := &events{}
	s := open(t, f.reg, "coder", f.opts(ev))
	mem := s.st.Load().memory
	mem.Set("draft", "x")
	notified := 0
	s.Subscribe(func() { notified++ })
	if err := s.Switch(context.Background(), "writer"); err != nil {
		t.Fatal(err)
	}
	if s.Agent() != "writer" || notified != 1 {
		t.Errorf("agent %q, notified %d", s.Agent(), notified)
	}
	if diff := cmp.Diff([]string{"summarize"}, poolNames(s)); diff != "" {
		t.Errorf("tools after switch (-want +got):\n%s", diff)
	}
	if _, ok := s.st.Load().memory.Get("draft"); ok {
		t.Error("memory leaked across Switch")
	}
	if r := call(t, s, "github__search_code", `{}`); r.OK {
		t.Error("old agent's tool callable after Switch")
	}
	if _, live := f.conn.count("github"); live != 0 {
		t.Errorf("github connection not released: %d live", live)
	}
	if err := s.Switch(context.Background(), "wrtier"); err == nil || !strings.Contains(err.Error(), `did you mean "writer"`) {
		t.Errorf("unknown agent: %v", err)
	}
	if s.Agent() != "writer" {
		t.Error("a failed Switch to an unknown agent tore the session down")
	}
}

func TestSeed_ToolOrchestration_ContextTeardown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFixture(decl.Agent{Name: "coder", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseServer, Name: "docs"}}})
	ev := &events{}
	s, err := Open(context.Background(), f.reg, "coder", f.opts(ev))
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, s, "github__search_code", `{"q":"x"}`))
	spillDir := s.st.Load().spill
	s.Close()
	s.Close() // idempotent
	for _, srv := range []string{"github", "docs"} {
		if acq, live := f.conn.count(srv); acq != 1 || live != 0 {
			t.Errorf("%s: acquired %d, live %d after Close", srv, acq, live)
		}
	}
	if s.Tools() != nil {
		t.Error("tools registry not cleared")
	}
	_ = spillDir
	e := ev.requireOne(t, EventAgentTeardown, "agent", "coder")
	if e.Attrs["servers"] != "2" || e.Attrs["forced"] != "false" {
		t.Errorf("teardown event %+v", e)
	}
	if r := call(t, s, "github__search_code", `{}`); r.OK || r.Error != "session closed" {
		t.Errorf("call after Close: %+v", r)
	}
}

func TestSeed_ToolOrchestration_ContextBuild(t *testing.T) {
	f := newFixture(decl.Agent{Name: "coder", Use: []decl.Use{{Kind: decl.UseTool, Name: "read_file"}, {Kind: decl.UseServer, Name: "github"}}})
	ev := &events{}
	s := open(t, f.reg, "coder", f.opts(ev))
	ev.requireOne(t, EventServerStart, "server", "github", "agent", "coder")
	e := ev.requireOne(t, EventAgentBuild, "agent", "coder")
	if e.Attrs["servers"] != "[github]" || e.Attrs["depth"] != "0" {
		t.Errorf("build event %+v", e)
	}
	if diff := cmp.Diff([]string{"github__get_file_contents", "github__get_file_history", "github__search_code", "read_file"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := s.Instructions(); !slices.Equal(got, []string{"Use search_code before reading files."}) {
		t.Errorf("instructions %q", got)
	}
	s.st.Load().memory.Set("k", "v")
	if v, _ := s.st.Load().memory.Get("k"); v != "v" {
		t.Error("memory not initialised")
	}
}

func TestSeed_ToolOrchestration_SwitchTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	shortGrace(t, 100*time.Millisecond)
	release := make(chan struct{})
	started := make(chan struct{})
	f := newFixture(decl.Agent{Name: "slow", Use: useTools("hang")}, decl.Agent{Name: "next", Use: useTools("summarize")})
	f.reg.Tools = append(f.reg.Tools, decl.Tool{Name: "hang", Kind: decl.KindGo, Go: goTool(func(ctx context.Context, _ json.RawMessage) (string, error) {
		close(started)
		<-release // ignores ctx on purpose: only the forced teardown ends the wait
		return "late", nil
	})})
	f.reg.Defaults.ToolTimeout = 0
	slices.SortFunc(f.reg.Tools, func(a, b decl.Tool) int { return strings.Compare(a.Name, b.Name) })
	ev := &events{}
	s, err := Open(context.Background(), f.reg, "slow", f.opts(ev))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result)
	go func() { done <- call(t, s, "hang", `{}`) }()
	<-started
	if err := s.Switch(context.Background(), "next"); err != nil {
		t.Fatal(err)
	}
	e := ev.requireOne(t, EventAgentSwitchTimeout, "agent", "slow")
	if e.Level != slog.LevelWarn || e.Attrs["in_flight"] != "1" {
		t.Errorf("event %+v", e)
	}
	ev.requireOne(t, EventAgentTeardown, "agent", "slow", "forced", "true")
	ev.requireOne(t, EventAgentBuild, "agent", "next")
	mustOK(t, call(t, s, "summarize", `{}`))
	close(release)
	// the old agent is gone: its late answer is not delivered
	if r := <-done; r.OK || r.Result != "" || !strings.Contains(r.Error, "torn down while the call ran") {
		t.Errorf("in-flight call: %+v", r)
	}
	ev.requireOne(t, EventToolLateResult, "tool", "hang", "agent", "slow", "status", "ok")
	s.Close()
}

func TestSeed_ToolOrchestration_SwitchWaitsForInFlight(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	f := newFixture(decl.Agent{Name: "a", Use: useTools("work")}, decl.Agent{Name: "b"})
	f.reg.Tools = append(f.reg.Tools, decl.Tool{Name: "work", Kind: decl.KindGo, Go: goTool(func(ctx context.Context, _ json.RawMessage) (string, error) {
		close(started)
		<-release
		return "done", nil
	})})
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	done := make(chan Result)
	go func() { done <- call(t, s, "work", `{}`) }()
	<-started
	switched := make(chan error)
	go func() { switched <- s.Switch(context.Background(), "b") }()
	close(release)
	if r := <-done; !r.OK {
		t.Errorf("in-flight call failed: %+v", r)
	}
	if err := <-switched; err != nil {
		t.Fatal(err)
	}
	if len(ev.named(EventAgentSwitchTimeout)) != 0 {
		t.Error("switch timed out although the call finished")
	}
	ev.requireOne(t, EventAgentTeardown, "agent", "a", "forced", "false")
}

func TestSeed_ToolOrchestration_AllowedToolInvoked(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("entities_*"), Allowed: []string{"entities_get"}})
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	r := call(t, s, "entities_get", `{"id":"7"}`)
	if out := mustOK(t, r); out != `{"id":"7"}` {
		t.Errorf("result %q", out)
	}
	e := ev.requireOne(t, EventToolCall, "tool", "entities_get")
	for k, want := range map[string]string{"agent": "a", "status": "ok", "chars_in": "10", "chars_out": "10", "server": "", "kind": "go", "namespace": "go"} {
		if e.Attrs[k] != want {
			t.Errorf("tool.call %s = %q, want %q", k, e.Attrs[k], want)
		}
	}
	if _, ok := e.Attrs["latency_ms"]; !ok {
		t.Error("tool.call has no latency_ms")
	}
}

func TestSeed_ToolOrchestration_BlockedToolInvoked(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "a", Use: useTools("entities_*"), Allowed: []string{"entities_get"}},
		decl.Agent{Name: "b", Use: useTools("entities_get")}, // allowed omitted: only use
	)
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	if slices.Contains(toolNames(s.Tools()), "entities_delete") {
		t.Error("tool outside tools.allowed listed")
	}
	r := call(t, s, "entities_delete", `{"id":"7"}`)
	if r.OK || r.Error != `tool "entities_delete" not allowed for agent "a"` {
		t.Errorf("result %+v", r)
	}
	ev.requireOne(t, EventToolBlocked, "tool", "entities_delete", "agent", "a", "reason", "not_allowed")
	b := open(t, f.reg, "b", f.opts(ev))
	if r := call(t, b, "summarize", `{}`); r.OK || r.Error != `tool "summarize" not allowed for agent "b"` {
		t.Errorf("result %+v", r)
	}
	ev.requireOne(t, EventToolBlocked, "tool", "summarize", "agent", "b")
}

func TestSeed_ToolOrchestration_WildcardAllowAll(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("entities_*", "summarize"), Allowed: []string{"*"}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	if diff := cmp.Diff([]string{"entities_create", "entities_delete", "entities_get", "entities_update", "summarize"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if r := call(t, s, "graph_traverse", `{}`); r.OK {
		t.Error(`"*" allowed a tool outside use`)
	}
}

func TestSeed_ToolOrchestration_MCPServerFailsToStart(t *testing.T) {
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

func TestSeed_ToolOrchestration_MissingServerEnv(t *testing.T) {
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

func TestSeed_ToolOrchestration_MCPHealthCheck(t *testing.T) {
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

func TestSeed_ToolOrchestration_AliasResolved(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("summarize"), Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	for _, name := range []string{"sum", "summarize"} {
		if out := mustOK(t, call(t, s, name, `{"x":1}`)); out != `{"x":1}` {
			t.Errorf("%s: %q", name, out)
		}
	}
}

func TestSeed_ToolOrchestration_AliasInAllowList(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "a", Use: useTools("summarize", "entities_get"), Allowed: []string{"sum"}, Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}},
		decl.Agent{Name: "b", Use: useTools("summarize"), Allowed: []string{"summarize"}, Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}},
	)
	for _, agent := range []string{"a", "b"} {
		s := open(t, f.reg, agent, f.opts(&events{}))
		mustOK(t, call(t, s, "sum", `{}`))
		mustOK(t, call(t, s, "summarize", `{}`))
		if r := call(t, s, "entities_get", `{}`); r.OK {
			t.Errorf("%s: entities_get allowed", agent)
		}
	}
}

func TestSeed_ToolOrchestration_GeneratedAllowSwitch(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseGlob, Name: "entities_*"}},
		Allowed: []string{"entities_get", "github__get_*"},
		Allow: func(name string) bool {
			switch name {
			case "entities_get":
				return true
			}
			return false
		}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	// exact names from the switch, globs at run time over live server tools
	if diff := cmp.Diff([]string{"entities_get", "github__get_file_contents", "github__get_file_history"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func workspace(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "workspace", "out"), 0o755)
	os.WriteFile(filepath.Join(dir, "workspace", "notes.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret\n"), 0o644)
	return dir
}

func TestSeed_ToolOrchestration_FsReadToolRegistered(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("read_file")})
	opts := f.opts(&events{})
	opts.Workdir = workspace(t)
	s := open(t, f.reg, "a", opts)
	if ti := s.Tools(); !strings.Contains(string(infoOf(ti, "read_file").InputSchema), "path") {
		t.Errorf("read_file schema: %s", infoOf(ti, "read_file").InputSchema)
	}
	if out := mustOK(t, call(t, s, "read_file", `{"path":"workspace/notes.txt"}`)); !strings.Contains(out, "hello") {
		t.Errorf("read: %q", out)
	}
	for _, p := range []string{"secret.txt", "workspace/../secret.txt", filepath.Join(opts.Workdir, "secret.txt")} {
		if r := call(t, s, "read_file", `{"path":`+jsonString(p)+`}`); r.OK || strings.Contains(r.Result, "secret") {
			t.Errorf("read %s escaped the policy: %+v", p, r)
		}
	}
}

func TestSeed_ToolOrchestration_FsWriteToolRegistered(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("write_file")})
	opts := f.opts(&events{})
	opts.Workdir = workspace(t)
	s := open(t, f.reg, "a", opts)
	mustOK(t, call(t, s, "write_file", `{"path":"workspace/out/a.txt","content":"hi"}`))
	if b, _ := os.ReadFile(filepath.Join(opts.Workdir, "workspace", "out", "a.txt")); string(b) != "hi" {
		t.Errorf("file %q", b)
	}
	if r := call(t, s, "write_file", `{"path":"workspace/notes.txt","content":"x"}`); r.OK {
		t.Error("write outside allowed_paths succeeded")
	}
}

func TestSeed_ToolOrchestration_ShellExecToolRegistered(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("git")})
	opts := f.opts(&events{})
	opts.Workdir = workspace(t)
	s := open(t, f.reg, "a", opts)
	if out := mustOK(t, call(t, s, "git", `{"command":"go","args":["env","GOOS"]}`)); !strings.Contains(out, "linux") {
		t.Errorf("go env: %q", out)
	}
	if r := call(t, s, "git", `{"command":"sh","args":["-c","echo pwned"]}`); r.OK {
		t.Errorf("command outside allowed_commands ran: %+v", r)
	}
}

func TestSeed_ToolOrchestration_MCPCapabilitiesDiscovered(t *testing.T) {
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

func TestSeed_ToolOrchestration_ToolMetadataExposed(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "docs"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	ti := infoOf(s.Tools(), "docs__search_docs")
	if ti.Description != "The search docs tool." || !strings.Contains(string(ti.InputSchema), `"q"`) || ti.Kind != decl.KindMCP || ti.Namespace != "docs" {
		t.Errorf("metadata %+v", ti)
	}
}

func infoOf(tools []ToolInfo, name string) ToolInfo {
	for _, t := range tools {
		if t.Name == name {
			return t
		}
	}
	return ToolInfo{}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var _ sync.Locker = (*sync.Mutex)(nil)

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

func TestSeed_ToolOrchestration_MCPHealthEvents(t *testing.T) {
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

// Calls still waiting for a queue slot have not started: Switch frees them
// at once and waits only for the running ones.
func TestSeed_ToolOrchestration_SwitchReleasesQueueWaiters(t *testing.T) {
	hold := make(chan struct{})
	var holding sync.WaitGroup
	holding.Add(3)
	f := newFixture(decl.Agent{Name: "a", Use: useTools("held")}, decl.Agent{Name: "b"}).withTools(decl.Tool{Name: "held", Kind: decl.KindGo, Queue: "github",
		Go: goTool(func(context.Context, json.RawMessage) (string, error) {
			holding.Done()
			<-hold
			return "ok", nil
		})})
	f.reg.Defaults.ToolTimeout = 0
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	st := s.st.Load()
	var holders, waiters sync.WaitGroup
	for range 3 {
		holders.Go(func() { mustOK(t, call(t, s, "held", `{}`)) })
	}
	holding.Wait()
	var freed atomic.Int64
	for range 5 {
		waiters.Go(func() {
			if r := call(t, s, "held", `{}`); !r.OK && strings.Contains(r.Error, "agent context closed") {
				freed.Add(1)
			}
		})
	}
	for st.inflight.Load() != 8 { // 3 running, 5 queued
		time.Sleep(time.Millisecond)
	}
	switched := make(chan error)
	go func() { switched <- s.Switch(context.Background(), "b") }()
	waiters.Wait() // freed while the holders still run
	if freed.Load() != 5 {
		t.Errorf("%d of 5 queued calls freed by Switch", freed.Load())
	}
	close(hold)
	holders.Wait()
	if err := <-switched; err != nil {
		t.Fatal(err)
	}
	if len(ev.named(EventAgentSwitchTimeout)) != 0 {
		t.Error("Switch timed out waiting for queued calls")
	}
}

// slowConnector never finishes the handshake of one server.
type slowConnector struct {
	Connector
	slow string
}

func (c slowConnector) Acquire(ctx context.Context, srv *decl.Server, getenv func(string) (string, bool)) (Upstream, error) {
	if srv.Name == c.slow {
		<-ctx.Done()
		return nil, fmt.Errorf("server %q: %w", srv.Name, context.Cause(ctx))
	}
	return c.Connector.Acquire(ctx, srv, getenv)
}

func TestSeed_ToolOrchestration_MCPServerStartupTimeout(t *testing.T) {
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
