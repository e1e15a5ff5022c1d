package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"go.uber.org/goleak"
)

// Seed dynamic-tool-loading: Routing deny by default.
func TestRoutingDenyByDefault(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a"})
	if got := f.reg.StepBundles("release", "planner", "review"); !slices.Equal(got, []string{"code_read", "web"}) {
		t.Errorf("route %v", got)
	}
	s := open(t, f.reg, "a", f.opts(&events{}))
	for _, addr := range [][3]string{{"release", "planner", "nope"}, {"release", "nobody", "plan"}, {"other", "planner", "plan"}} {
		tools, err := s.ToolsForStep(context.Background(), addr[0], addr[1], addr[2])
		if err != nil || len(tools) != 0 {
			t.Errorf("%v: %v %v", addr, toolNames(tools), err)
		}
	}
	if len(s.Servers()) != 0 {
		t.Errorf("an unrouted step connected servers: %+v", s.Servers())
	}
}

// Seed dynamic-tool-loading: Routing generated switch overrides and cache.
func TestRoutingGeneratedSwitchOverridesAndCache(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a"})
	calls := 0
	f.reg.Route = func(wf, role, step string) []string {
		calls++
		if wf == "release" && role == "planner" && step == "plan" {
			return []string{"code_read"}
		}
		return nil
	}
	opts := f.opts(&events{})
	opts.Routes = map[string][]string{"release/planner/review": {"files"}}
	s := open(t, f.reg, "a", opts)
	ctx := context.Background()
	for range 3 {
		tools, _ := s.ToolsForStep(ctx, "release", "planner", "plan")
		if diff := cmp.Diff([]string{"github__get_file_contents", "github__search_code"}, toolNames(tools)); diff != "" {
			t.Fatalf("plan (-want +got):\n%s", diff)
		}
	}
	if calls != 1 {
		t.Errorf("route resolved %d times for one address; want cached", calls)
	}
	tools, _ := s.ToolsForStep(ctx, "release", "planner", "review")
	if diff := cmp.Diff([]string{"read_file"}, toolNames(tools)); diff != "" {
		t.Errorf("override (-want +got):\n%s", diff)
	}
}

// Seed dynamic-tool-loading: Direct bundle namespacing.
func TestDirectBundleNamespacing(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a"})
	s := open(t, f.reg, "a", f.opts(&events{}))
	tools, err := s.ToolsForStep(context.Background(), "release", "planner", "plan")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"github__get_file_contents", "github__search_code"}, toolNames(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	// the step's tools are callable, under their namespaced names
	if out := mustOK(t, call(t, s, "github__search_code", `{"q":"fn"}`)); out != `search_code:{"q":"fn"}` {
		t.Errorf("result %q", out)
	}
	if r := call(t, s, "github__get_file_history", `{}`); r.OK {
		t.Error("a tool outside the bundle's allow list was callable")
	}
}

// Seed dynamic-tool-loading: Allow intersect deny union.
func TestAllowIntersectDenyUnion(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a"})
	s := open(t, f.reg, "a", f.opts(&events{}))
	// code_read allows search_code, get_file_contents; code_hist allows get_file_*
	// and denies get_file_contents: nothing is in both allow lists and outside the denies
	tools, _ := s.ToolsForStep(context.Background(), "release", "planner", "history")
	if len(tools) != 0 {
		t.Errorf("tools %v", toolNames(tools))
	}
	// meta scopes merge the same way
	p := poolOf(t, f.reg)
	// (scraper is untrusted: exact names, no globs)
	f.reg.Bundles = append(f.reg.Bundles, decl.Bundle{Name: "web2", Mode: "meta", Server: "scraper", AllowTools: []string{"fetch_page", "fetch_secret"}, DenyTools: []string{"fetch_secret"}})
	p.bundles["web2"] = &f.reg.Bundles[len(f.reg.Bundles)-1]
	ss, _ := p.resolveStep(p.snap.Load(), nil, "x/y/z", []string{"web", "web2"}, nil)
	m := ss.meta["scraper"]
	srv := p.servers["scraper"]
	if !m.permits(srv, "fetch_page") || m.permits(srv, "post_form") || m.permits(srv, "fetch_secret") {
		t.Errorf("merged meta scope %+v", m)
	}
}

// Seed dynamic-tool-loading: Meta bundle injection.
func TestMetaBundleInjection(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a"})
	s := open(t, f.reg, "a", f.opts(&events{}))
	ctx := context.Background()
	tools, err := s.ToolsForStep(ctx, "release", "planner", "review")
	if err != nil {
		t.Fatal(err)
	}
	// no scraper tool schema is injected: only the meta surface
	want := []string{"github__get_file_contents", "github__search_code", decl.ToolMCPCall, decl.ToolMCPSchema, decl.ToolMCPList}
	if diff := cmp.Diff(want, toolNames(tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	out := mustOK(t, call(t, s, decl.ToolMCPList, `{"server":"scraper"}`))
	var list struct {
		Tools []struct{ Name string }
		Total int
	}
	json.Unmarshal([]byte(out), &list)
	if list.Total != 1 || list.Tools[0].Name != "fetch_page" {
		t.Errorf("mcp_list_tools: %s", out)
	}
	out = mustOK(t, call(t, s, decl.ToolMCPSchema, `{"server":"scraper","tool":"fetch_page"}`))
	if !strings.Contains(out, `"input_schema":{"properties":{"q"`) {
		t.Errorf("schema: %s", out)
	}
	out = mustOK(t, call(t, s, decl.ToolMCPCall, `{"server":"scraper","tool":"fetch_page","args":{"q":"https://x"}}`))
	if out != `fetch_page:{"q":"https://x"}` {
		t.Errorf("call: %s", out)
	}
	for _, bad := range []string{
		`{"server":"scraper","tool":"post_form","args":{}}`,  // outside allow_tools
		`{"server":"github","tool":"delete_repo","args":{}}`, // server outside the meta scope
	} {
		if r := call(t, s, decl.ToolMCPCall, bad); r.OK {
			t.Errorf("%s: allowed", bad)
		}
	}
	if r := call(t, s, decl.ToolMCPSchema, `{"server":"scraper","tool":"post_form"}`); r.OK {
		t.Error("schema of a disallowed tool returned")
	}
}

// Seed dynamic-tool-loading: Meta bundle in use.
func TestMetaBundleInUse(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseBundle, Name: "docs_meta"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	names := toolNames(s.Tools())
	for _, n := range []string{decl.ToolMCPCall, decl.ToolMCPSchema, decl.ToolMCPList} {
		if !slices.Contains(names, n) {
			t.Errorf("missing %s: %v", n, names)
		}
	}
	if slices.Contains(names, "docs__search_docs") {
		t.Error("meta bundle injected a tool schema")
	}
	if out := mustOK(t, call(t, s, decl.ToolMCPCall, `{"server":"docs","tool":"search_docs","args":{"q":"a"}}`)); out != `search_docs:{"q":"a"}` {
		t.Errorf("call: %s", out)
	}
}

// Seed dynamic-tool-loading: Trust enforcement.
func TestTrustEnforcement(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "direct", Use: []decl.Use{{Kind: decl.UseServer, Name: "scraper"}, {Kind: decl.UseBundle, Name: "scrape_direct"}, {Kind: decl.UseTool, Name: "scraper__fetch_page"}}},
	)
	ev := &events{}
	s := open(t, f.reg, "direct", f.opts(ev))
	if len(poolNames(s)) != 0 {
		t.Errorf("untrusted tools exposed directly: %v", poolNames(s))
	}
	ev.requireOne(t, EventToolBlocked, "server", "scraper")
	ev.requireOne(t, EventToolBlocked, "bundle", "scrape_direct")
	tools, _ := s.ToolsForStep(context.Background(), "release", "planner", "untrusted")
	if len(tools) != 0 {
		t.Errorf("direct bundle of an untrusted server resolved: %v", toolNames(tools))
	}
	if r := call(t, s, "scraper__fetch_page", `{}`); r.OK {
		t.Error("untrusted tool callable directly")
	}
	// untrusted and no allow_tools anywhere: the meta bundle is refused too
	f.reg.Servers[2].AllowTools = nil
	f.reg.Bundles = append(f.reg.Bundles, decl.Bundle{Name: "web_open", Mode: "meta", Server: "scraper"})
	p := newPool(f.reg)
	ss, warns := p.resolveStep(p.snap.Load(), nil, "a/b/c", []string{"web_open"}, nil)
	if len(ss.meta) != 0 || len(warns) == 0 {
		t.Errorf("meta bundle without allow_tools on an untrusted server accepted: %+v %+v", ss.meta, warns)
	}
}

// Seed dynamic-tool-loading: Lazy connect.
func TestLazyConnect(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("summarize")})
	s := open(t, f.reg, "a", f.opts(&events{}))
	if acq, _ := f.conn.count("github"); acq != 0 {
		t.Fatal("Open connected a server the agent does not use")
	}
	s.ToolsForStep(context.Background(), "release", "planner", "plan")
	if acq, _ := f.conn.count("github"); acq != 1 {
		t.Error("step did not connect its bundle's server")
	}
	if acq, _ := f.conn.count("scraper"); acq != 0 {
		t.Error("step connected a server no selected bundle references")
	}
	s.ToolsForStep(context.Background(), "release", "planner", "review")
	if acq, _ := f.conn.count("scraper"); acq != 1 {
		t.Error("meta bundle's server not connected")
	}
	if acq, _ := f.conn.count("github"); acq != 1 {
		t.Error("github connected twice")
	}
}

// Seed dynamic-tool-loading: Deterministic close.
func TestDeterministicClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFixture(decl.Agent{Name: "a"})
	s, _ := Open(context.Background(), f.reg, "a", f.opts(&events{}))
	s.ToolsForStep(context.Background(), "release", "planner", "review")
	s.Close()
	for _, srv := range []string{"github", "scraper"} {
		if acq, live := f.conn.count(srv); acq != 1 || live != 0 {
			t.Errorf("%s: acquired %d live %d", srv, acq, live)
		}
	}
}

// Seed dynamic-tool-loading: Same step same surface.
func TestSameStepSameSurface(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a"})
	s := open(t, f.reg, "a", f.opts(&events{}))
	ctx := context.Background()
	a, _ := s.ToolsForStep(ctx, "release", "planner", "review")
	s.ToolsForStep(ctx, "release", "planner", "plan")
	b, _ := s.ToolsForStep(ctx, "release", "planner", "review")
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same step, different surface:\n%s", diff)
	}
}
