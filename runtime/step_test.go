package runtime

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// stepFixture is one server "x" with echo, pid, slow and count (locked, so
// that explain sees them too), bundles whose allow lists intersect to
// {echo, pid, slow}, and an agent that on its own reaches all four,
// directly and through a meta bundle.
func stepFixture(agents ...decl.Agent) *fixture {
	conn := newMemConnector()
	conn.add("x", mcpServer("", "echo", "pid", "slow", "count"))
	reg := &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000},
		Servers:   []decl.Server{{Name: "x", Transport: "stdio", Command: "x", Trusted: true}},
		Tools: []decl.Tool{
			{Name: "notes", Kind: decl.KindGo, Go: echoGo()},
			{Name: "x__count", Kind: decl.KindMCP, Server: "x", Original: "count"},
			{Name: "x__echo", Kind: decl.KindMCP, Server: "x", Original: "echo"},
			{Name: "x__pid", Kind: decl.KindMCP, Server: "x", Original: "pid"},
			{Name: "x__slow", Kind: decl.KindMCP, Server: "x", Original: "slow"},
		},
		Bundles: []decl.Bundle{
			{Name: "four", Mode: "direct", Server: "x", AllowTools: []string{"echo", "pid", "slow", "count"}},
			{Name: "no_count", Mode: "direct", Server: "x", DenyTools: []string{"count"}},
			{Name: "meta_four", Mode: "meta", Server: "x", AllowTools: []string{"echo", "pid", "slow", "count"}},
			{Name: "meta_three", Mode: "meta", Server: "x", AllowTools: []string{"echo", "pid", "slow"}},
			{Name: "meta_all", Mode: "meta", Server: "x"},
		},
		Agents: agents,
		Workflows: []decl.Workflow{{Name: "wf", Roles: []decl.Role{{Name: "r", Steps: []decl.Step{
			{Name: "direct", Bundles: []string{"four", "no_count"}},
			{Name: "meta", Bundles: []string{"meta_four", "meta_three"}},
			{Name: "mixed", Bundles: []string{"four", "meta_three"}},
			{Name: "none"},
		}}}}},
	}
	return &fixture{reg: reg, conn: conn}
}

func wideAgent() decl.Agent {
	return decl.Agent{Name: "wide", Use: append([]decl.Use{{Kind: decl.UseServer, Name: "x"}, {Kind: decl.UseBundle, Name: "meta_all"}, {Kind: decl.UseTool, Name: "notes"}}, useRuntime(decl.OptInTools...)...),
		Subagents: []string{"helper"}, Router: []string{"helper"}}
}

// A step narrows: while it is active the agent reaches the step's bundles
// (allow lists intersected, deny lists united), not its own tools, and its
// own meta bundle is no way around that.
func TestStepNarrowsDirectBundles(t *testing.T) {
	f := stepFixture(wideAgent(), decl.Agent{Name: "helper"})
	s := open(t, f.reg, "wide", f.opts(&events{}))
	ctx := context.Background()
	mustOK(t, call(t, s, "x__count", `{}`)) // its own tool, before the step
	tools, err := s.ToolsForStep(ctx, "wf", "r", "direct")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"x__echo", "x__pid", "x__slow"}
	if diff := cmp.Diff(want, toolNames(tools)); diff != "" {
		t.Errorf("step tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, poolNames(s)); diff != "" {
		t.Errorf("surface during the step (-want +got):\n%s", diff)
	}
	for _, c := range []struct{ tool, args string }{
		{"x__count", `{}`},
		{"notes", `{}`},
		{decl.ToolMCPCall, `{"server":"x","tool":"count","args":{}}`},
		{decl.ToolMCPList, `{"server":"x"}`},
	} {
		if r := call(t, s, c.tool, c.args); r.OK {
			t.Errorf("%s %s reachable during the step: %s", c.tool, c.args, r.Result)
		}
	}
	mustOK(t, call(t, s, "x__echo", `{"q":"hi"}`))
	// the runtime tools the agent declares stay
	names := toolNames(s.Tools())
	for _, n := range []string{"agent__helper", decl.ToolHandoff, decl.ToolBatch, decl.ToolFinalReport, decl.ToolOutputRead} {
		if !slices.Contains(names, n) {
			t.Errorf("%s missing during the step: %v", n, names)
		}
	}
	// agent__batch runs its calls under the step's policy too
	out := mustOK(t, call(t, s, decl.ToolBatch, `{"calls":[{"tool":"x__count"},{"tool":"x__pid"}]}`))
	if !strings.Contains(out, `"tool":"x__count","ok":false`) || !strings.Contains(out, `"tool":"x__pid","ok":true`) {
		t.Errorf("batch: %s", out)
	}
	// a step routing nothing leaves only the runtime tools
	if tools, _ := s.ToolsForStep(ctx, "wf", "r", "none"); len(tools) != 0 || len(poolNames(s)) != 0 {
		t.Errorf("unrouted step: %v, surface %v", toolNames(tools), poolNames(s))
	}
	s.LeaveStep()
	mustOK(t, call(t, s, "x__count", `{}`))
	mustOK(t, call(t, s, decl.ToolMCPCall, `{"server":"x","tool":"count","args":{}}`))
}

func TestStepNarrowsMetaBundles(t *testing.T) {
	f := stepFixture(wideAgent(), decl.Agent{Name: "helper"})
	s := open(t, f.reg, "wide", f.opts(&events{}))
	ctx := context.Background()
	tools, _ := s.ToolsForStep(ctx, "wf", "r", "meta")
	if diff := cmp.Diff([]string{decl.ToolMCPCall, decl.ToolMCPSchema, decl.ToolMCPList}, toolNames(tools)); diff != "" {
		t.Errorf("step tools (-want +got):\n%s", diff)
	}
	if r := call(t, s, decl.ToolMCPCall, `{"server":"x","tool":"count","args":{}}`); r.OK || !strings.Contains(r.Error, "not allowed") {
		t.Errorf("count through meta during the step: %+v", r)
	}
	mustOK(t, call(t, s, decl.ToolMCPCall, `{"server":"x","tool":"slow","args":{}}`))
	list := mustOK(t, call(t, s, decl.ToolMCPList, `{"server":"x"}`))
	if strings.Contains(list, "count") || !strings.Contains(list, "slow") {
		t.Errorf("mcp_list_tools during the step: %s", list)
	}
	if r := call(t, s, "x__count", `{}`); r.OK {
		t.Error("the agent's own direct tool callable during a meta step")
	}

	// A direct and a meta bundle of one server narrow each other.
	tools, _ = s.ToolsForStep(ctx, "wf", "r", "mixed")
	want := []string{decl.ToolMCPCall, decl.ToolMCPSchema, decl.ToolMCPList, "x__echo", "x__pid", "x__slow"}
	if diff := cmp.Diff(want, toolNames(tools)); diff != "" {
		t.Errorf("mixed step (-want +got):\n%s", diff)
	}
	if r := call(t, s, decl.ToolMCPCall, `{"server":"x","tool":"count","args":{}}`); r.OK {
		t.Errorf("count through meta in the mixed step: %+v", r)
	}
}

// tools.allowed cuts a step; a discovery agent finds and loads only the
// step's tools while it is active.
func TestStepAllowedAndDiscovery(t *testing.T) {
	f := stepFixture(
		decl.Agent{Name: "picky", Use: []decl.Use{{Kind: decl.UseTool, Name: "notes"}}, Allowed: []string{"notes", "x__e*", "x__count"}},
		decl.Agent{Name: "seeker", Discovery: true, Use: []decl.Use{{Kind: decl.UseServer, Name: "x"}, {Kind: decl.UseTool, Name: "notes"}}},
	)
	s := open(t, f.reg, "picky", f.opts(&events{}))
	ctx := context.Background()
	tools, _ := s.ToolsForStep(ctx, "wf", "r", "direct")
	if diff := cmp.Diff([]string{"x__echo"}, toolNames(tools)); diff != "" {
		t.Errorf("picky at the step (-want +got):\n%s", diff)
	}

	d := open(t, f.reg, "seeker", f.opts(&events{}))
	d.ToolsForStep(ctx, "wf", "r", "direct")
	if r := call(t, d, decl.ToolLoad, `{"names":["notes"]}`); r.OK {
		t.Errorf("tool_load of the agent's own tool during a step: %s", r.Result)
	}
	out := mustOK(t, call(t, d, decl.ToolFind, `{"query":"count notes echo"}`))
	if strings.Contains(out, `"x__count"`) || strings.Contains(out, `"notes"`) || !strings.Contains(out, `"x__echo"`) {
		t.Errorf("tool_find during the step: %s", out)
	}
	d.LeaveStep()
	mustOK(t, call(t, d, decl.ToolLoad, `{"names":["notes","x__count"]}`))
}

// Explain at a step and a session at that step agree, routes overridden
// through Options.Routes included.
func TestExplainStepMatchesSession(t *testing.T) {
	agents := []decl.Agent{
		wideAgent(),
		{Name: "helper"},
		{Name: "picky", Use: []decl.Use{{Kind: decl.UseTool, Name: "notes"}}, Allowed: []string{"notes", "x__e*", "x__count"}},
		{Name: "seeker", Discovery: true, Use: []decl.Use{{Kind: decl.UseServer, Name: "x"}}},
	}
	routes := map[string][]string{"wf/r/none": {"meta_three", "no_count"}, "wf/r/direct": {"four"}}
	for _, withRoutes := range []bool{false, true} {
		f := stepFixture(agents...)
		o := f.opts(&events{})
		if withRoutes {
			o.Routes = routes
		}
		for _, a := range agents {
			for _, step := range []string{"direct", "meta", "mixed", "none"} {
				addr := "wf/r/" + step
				x, err := Explain(f.reg, ExplainOptions{Agent: a.Name, Step: addr, Routes: o.Routes})
				if err != nil {
					t.Fatal(err)
				}
				s := open(t, f.reg, a.Name, o)
				if _, err := s.ToolsForStep(context.Background(), "wf", "r", step); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(toolNames(s.Tools()), explained(x, StatusCallable), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s at %s (routes %v): session vs explain (-session +explain):\n%s", a.Name, addr, withRoutes, diff)
				}
				if withRoutes && step != "meta" && step != "mixed" && x.Routed == "" {
					t.Errorf("%s: route override not shown", addr)
				}
				s.Close()
			}
		}
	}
}
