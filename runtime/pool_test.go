package runtime

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Seed agent-tool-pool, scenario "Tool pool initialization".
func TestToolPoolInitialization(t *testing.T) {
	f := newFixture(decl.Agent{Name: "all", Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}}})
	ev := &events{}
	s := open(t, f.reg, "all", f.opts(ev))
	pool := poolOf(t, f.reg)
	var names []string
	for _, pt := range pool.Tools() {
		names = append(names, pt.Name)
	}
	// declared tools, plus github's live tools/list filtered by its allow/deny
	for _, want := range []string{"read_file", "summarize", "entities_get", "github__search_code", "github__get_file_history", "docs__search_docs"} {
		if !slices.Contains(names, want) {
			t.Errorf("pool lacks %s: %v", want, names)
		}
	}
	for _, not := range []string{"github__delete_repo", "github__create_issue", "scraper__post_form"} {
		if slices.Contains(names, not) {
			t.Errorf("pool has %s, which the server's allow/deny excludes", not)
		}
	}
	// cached: a second session reuses the pool and its snapshot
	snap := pool.snap.Load()
	s2 := open(t, f.reg, "all", f.opts(ev))
	if poolOf(t, f.reg) != pool || pool.snap.Load() != snap {
		t.Error("pool rebuilt although nothing changed")
	}
	if !slices.Contains(poolNames(s), "github__get_file_history") || !slices.Contains(poolNames(s2), "docs__search_docs") {
		t.Errorf("session tools miss discovered tools: %v", poolNames(s))
	}
}

// Seed agent-tool-pool, scenario "Tool pool cache invalidation".
func TestToolPoolCacheInvalidation(t *testing.T) {
	f := newFixture(decl.Agent{Name: "gh", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}})
	ev := &events{}
	s := open(t, f.reg, "gh", f.opts(ev))
	pool := poolOf(t, f.reg)
	before := pool.snap.Load()
	// the server's tool list changes: the pool is rebuilt
	changed := make(chan struct{}, 1)
	cancel := s.Subscribe(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer cancel()
	f.conn.servers["github"].RemoveTools("get_file_history")
	<-changed
	after := pool.snap.Load()
	if after == before || after.byName["github__get_file_history"] != nil {
		t.Fatal("pool not rebuilt after tools/list_changed")
	}
	if slices.Contains(poolNames(s), "github__get_file_history") {
		t.Error("session still lists a tool its server removed")
	}
	// configuration reloaded: Invalidate falls back to the lock file
	pool.Invalidate("github")
	if pool.snap.Load() == after || pool.snap.Load().byName["github__get_file_history"] != nil {
		t.Error("Invalidate did not rebuild")
	}
	if pool.snap.Load().byName["github__search_code"] == nil {
		t.Error("locked tool missing after Invalidate")
	}
}

// Seed agent-tool-pool, scenario "Exact tool name matching".
func TestExactToolNameMatching(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("search_hybrid", "entities_get", "graph_traverse")})
	s := open(t, f.reg, "a", f.opts(&events{}))
	if diff := cmp.Diff([]string{"entities_get", "graph_traverse", "search_hybrid"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// Seed agent-tool-pool, scenario "Glob pattern matching".
func TestGlobPatternMatching(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("entities_*")})
	s := open(t, f.reg, "a", f.opts(&events{}))
	if diff := cmp.Diff([]string{"entities_create", "entities_delete", "entities_get", "entities_update"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// Seed agent-tool-pool, scenario "Wildcard access".
func TestWildcardAccess(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("*")})
	s := open(t, f.reg, "a", f.opts(&events{}))
	var want []string
	for _, pt := range poolOf(t, f.reg).Tools() {
		if !pt.Untrusted {
			want = append(want, pt.Name)
		}
	}
	if diff := cmp.Diff(want, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if slices.Contains(poolNames(s), "scraper__fetch_page") {
		t.Error("a glob exposed an untrusted server's tool directly")
	}
}

// Seed agent-tool-pool, scenario "Tool not found in pool".
func TestToolNotFoundInPool(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("entities_get", "no_such_tool")})
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	if diff := cmp.Diff([]string{"entities_get"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	e := ev.requireOne(t, EventToolUnknown, "tool", "no_such_tool")
	if e.Level != slog.LevelWarn {
		t.Errorf("level %v, want warn", e.Level)
	}
}

// Seed agent-tool-pool, scenario "Default sub-agent denied tools".
func TestDefaultSubAgentDeniedTools(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "lead", Use: useTools("*"), Spawn: true, Subagents: []string{"worker"}},
		decl.Agent{Name: "worker", Use: useTools("*")}, // "*" does not opt in
	)
	lead := open(t, f.reg, "lead", f.opts(&events{}))
	if !slices.Contains(toolNames(lead.Tools()), decl.ToolSpawnAgents) {
		t.Fatal("top-level agent with spawn = true lacks spawn_agents")
	}
	opts := f.opts(&events{})
	opts.Depth = 1
	w := open(t, f.reg, "worker", opts)
	for _, n := range []string{decl.ToolSpawnAgents, decl.ToolListAgents} {
		if slices.Contains(toolNames(w.Tools()), n) {
			t.Errorf("sub-agent at depth 1 kept %s", n)
		}
		if r := call(t, w, n, `{}`); r.OK || !strings.Contains(r.Error, "not allowed") {
			t.Errorf("call %s at depth 1: %+v", n, r)
		}
	}
}

// Seed agent-tool-pool, scenario "Opt-in to delegation".
func TestOptInToDelegation(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "lead", Spawn: true, Subagents: []string{"mid"}},
		decl.Agent{Name: "mid", Use: useTools(decl.ToolSpawnAgents, "summarize"), Subagents: []string{"leaf"}},
		decl.Agent{Name: "leaf", Use: useTools("summarize")},
	)
	runner := &recordingRunner{}
	opts := f.opts(&events{})
	opts.Runner = runner
	runner.inner = func(ctx context.Context, child *Session, prompt string) (string, error) {
		if child.Agent() == "mid" {
			if !slices.Contains(toolNames(child.Tools()), decl.ToolSpawnAgents) {
				return "", errString("mid lacks spawn_agents at depth 1")
			}
			r := child.Call(ctx, decl.ToolSpawnAgents, []byte(`{"agents":[{"agent":"leaf","prompt":"p2"}]}`))
			return r.Result, nil
		}
		return "leaf done", nil
	}
	lead := open(t, f.reg, "lead", opts)
	r := call(t, lead, decl.ToolSpawnAgents, `{"agents":[{"agent":"mid","prompt":"p1"}]}`)
	out := mustOK(t, r)
	if !strings.Contains(out, `leaf done`) {
		t.Fatalf("nested spawn result: %s", out)
	}
	if diff := cmp.Diff([]string{"lead>mid@1", "mid>leaf@2"}, runner.seen()); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
}

// Seed agent-tool-pool, scenario "Max depth enforcement".
func TestMaxDepthEnforcement(t *testing.T) {
	f := newFixture(decl.Agent{Name: "deep", Spawn: true, Use: useTools(decl.ToolSpawnAgents)})
	ev := &events{}
	opts := f.opts(ev)
	opts.Depth = 2 // == max_depth
	s := open(t, f.reg, "deep", opts)
	if slices.Contains(toolNames(s.Tools()), decl.ToolSpawnAgents) {
		t.Error("spawn_agents kept at max depth")
	}
	e := ev.requireOne(t, EventSubagentMaxDepth, "agent", "deep")
	if e.Level != slog.LevelWarn || e.Attrs["depth"] != "2" || e.Attrs["max_depth"] != "2" {
		t.Errorf("event %+v", e)
	}
}

// Seed agent-tool-pool, scenario "LLM cannot access unresolved tools".
func TestLLMCannotAccessUnresolvedTools(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("entities_get")})
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	if slices.Contains(toolNames(s.Tools()), "entities_delete") {
		t.Fatal("unresolved tool listed")
	}
	r := call(t, s, "entities_delete", `{"id":"1"}`)
	if r.OK || r.Error != `tool "entities_delete" not allowed for agent "a"` {
		t.Errorf("result %+v", r)
	}
	ev.requireOne(t, EventToolBlocked, "tool", "entities_delete", "agent", "a")
	r = call(t, s, "entities_gte", `{}`)
	if r.OK || !strings.Contains(r.Error, `tool "entities_gte" not found; did you mean "entities_get"?`) || !strings.Contains(r.Error, "tool_find") {
		t.Errorf("result %+v", r)
	}
}

// Seed agent-tool-pool, scenario "Glob resolution at build time".
func TestGlobResolutionAtBuildTime(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("github__get_*")})
	s := open(t, f.reg, "a", f.opts(&events{}))
	before := poolNames(s)
	addEchoTool(f.conn.servers["github"], "get_file_blame")
	// the pool learns of it through the session's tools/list_changed
	// handler; nothing else signals it (the session's surface stays put)
	for deadline := time.Now().Add(10 * time.Second); poolOf(t, f.reg).snap.Load().byName["github__get_file_blame"] == nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the new tool never reached the pool")
		}
	}
	if poolOf(t, f.reg).snap.Load().byName["github__get_file_blame"] == nil {
		t.Fatal("new tool not in the pool")
	}
	if diff := cmp.Diff(before, poolNames(s)); diff != "" {
		t.Errorf("glob re-resolved mid-session (-before +after):\n%s", diff)
	}
	if r := call(t, s, "github__get_file_blame", `{}`); r.OK {
		t.Error("new tool callable mid-session")
	}
	s2 := open(t, f.reg, "a", f.opts(&events{}))
	if !slices.Contains(poolNames(s2), "github__get_file_blame") {
		t.Errorf("next session lacks the new tool: %v", poolNames(s2))
	}
}

// The same with discovery: tool_find of an open session does not offer
// the tool a glob would take only now (the cut resolution gets its own
// filter), and tool_load refuses it; the next session finds it.
func TestGlobResolutionAtBuildTimeFind(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Discovery: true, Use: useTools("github__get_*")})
	s := open(t, f.reg, "a", f.opts(&events{}))
	mustOK(t, call(t, s, decl.ToolFind, `{"query":"blame"}`)) // tool_find's filter made before the change
	addEchoTool(f.conn.servers["github"], "get_file_blame")
	for deadline := time.Now().Add(10 * time.Second); poolOf(t, f.reg).snap.Load().byName["github__get_file_blame"] == nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the new tool never reached the pool")
		}
	}
	if out := mustOK(t, call(t, s, decl.ToolFind, `{"query":"get file blame"}`)); strings.Contains(out, "get_file_blame") {
		t.Errorf("tool_find offers a glob's new match mid-session: %s", out)
	}
	if r := call(t, s, decl.ToolLoad, `{"names":["github__get_file_blame"]}`); r.OK && strings.Contains(r.Result, "get_file_blame") && !strings.Contains(r.Result, "not") {
		t.Errorf("tool_load loaded a glob's new match mid-session: %s", r.Result)
	}
	s2 := open(t, f.reg, "a", f.opts(&events{}))
	if out := mustOK(t, call(t, s2, decl.ToolFind, `{"query":"get file blame"}`)); !strings.Contains(out, "github__get_file_blame") {
		t.Errorf("next session's tool_find lacks the new tool: %s", out)
	}
}

// A server's list changing must not rebuild what sessions made for the
// unchanged tools (a builtin's confined roots, for one).
func TestPoolKeepsUnchangedTools(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseTool, Name: "read_file"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	pool := poolOf(t, f.reg)
	before := pool.snap.Load().byName["read_file"]
	st := s.st.Load()
	entryBefore := st.surf.Load().entry("read_file")
	closers := len(st.closers)
	changed := make(chan struct{}, 1)
	cancel := s.Subscribe(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer cancel()
	f.conn.servers["github"].RemoveTools("get_file_history")
	<-changed
	if pool.snap.Load().byName["read_file"] != before {
		t.Error("unchanged declared tool got a new pool entry")
	}
	if st.surf.Load().entry("read_file") != entryBefore || len(st.closers) != closers {
		t.Error("session rebuilt the builtin of an unchanged tool")
	}
}
