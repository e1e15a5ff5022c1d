package runtime

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func explained(x *Explanation, status ToolStatus) []string {
	var out []string
	for _, t := range x.Tools {
		if t.Status == status {
			out = append(out, t.Name)
		}
	}
	return out
}

func reasonsOf(x *Explanation, name string) string {
	for _, t := range x.Tools {
		if t.Name == name {
			return strings.Join(t.Reasons, "; ")
		}
	}
	return ""
}

func TestExplainAgent(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "coder", Use: append([]decl.Use{{Kind: decl.UseTool, Name: "read_file"}, {Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseBundle, Name: "web"}, {Kind: decl.UseGlob, Name: "entities_*"}, {Kind: decl.UseTool, Name: "ghost"}},
			useRuntime(decl.OptInTools...)...),
			Allowed: []string{"read", "github__*", "agent__*", "mcp_*", "output_read", "router__handoff-to"}, Aliases: []decl.Alias{{Name: "read", Target: "read_file"}},
			Subagents: []string{"researcher"}, Router: []string{"researcher"}},
		decl.Agent{Name: "researcher"},
	)
	x, err := Explain(f.reg, ExplainOptions{Agent: "coder"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"agent__batch", "agent__final_report", "agent__researcher", "agent__task_status",
		"github__get_file_contents", "github__search_code", "mcp_call_tool", "mcp_get_tool_schema", "mcp_list_tools",
		"output_read", "read", "router__handoff-to"} // read_file under its alias
	if diff := cmp.Diff(want, explained(x, StatusCallable)); diff != "" {
		t.Errorf("callable (-want +got):\n%s", diff)
	}
	for name, want := range map[string]string{
		"read":                `tools.use[0] tool.read_file; tools.allowed[0] alias "read" -> read_file; listed under its alias "read" (read_file still answers calls)`,
		"github__search_code": `tools.use[1] server.github; tools.allowed[1] glob "github__*"`,
		"entities_get":        `tools.use[3] glob "entities_*"; in use but not matched by tools.allowed`,
		"ghost":               `tools.use[4] tool.ghost: not found in the pool; skipped`,
		"mcp_call_tool":       `tools.use[2] bundle.web: meta tools reach server scraper`,
		"spawn_agents":        `not enabled: agent has spawn = false`,
		"agent__batch":        `tools.use[5] runtime.agent__batch`,
		"output_read":         `tools.use[8] runtime.output_read`,
	} {
		if got := reasonsOf(x, name); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	if !slices.Contains(explained(x, StatusExcluded), "entities_get") {
		t.Error("entities_get not excluded")
	}
	if diff := cmp.Diff([]string{"github", "scraper"}, x.Servers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if len(x.Warnings) != 1 || !strings.Contains(x.Warnings[0], "tool.unknown") || !strings.Contains(x.Warnings[0], "ghost") {
		t.Errorf("warnings %q", x.Warnings)
	}
	var b strings.Builder
	x.WriteTo(&b)
	for _, line := range []string{"agent coder", "alias read -> read_file", "callable (12):", "excluded ("} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, b.String())
		}
	}
}

// TestExplainSurfaceIsTheSpec: tools.allowed is the agent's whole list,
// runtime tools included, and the internal tools and output_read are
// offered only when tools.use names them.
func TestExplainSurfaceIsTheSpec(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "one", Use: useTools("read_file")},
		decl.Agent{Name: "narrow", Discovery: true, Use: append(useTools("read_file"), useRuntime(decl.ToolBatch)...), Allowed: []string{"read_file", "tool_find"}, Subagents: []string{"one"}},
	)
	x, err := Explain(f.reg, ExplainOptions{Agent: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"read_file"}, explained(x, StatusCallable)); diff != "" {
		t.Errorf("one: callable (-want +got):\n%s", diff)
	}
	s := open(t, f.reg, "one", f.opts(&events{}))
	if diff := cmp.Diff([]string{"read_file"}, toolNames(s.Tools())); diff != "" {
		t.Errorf("one: session tools (-want +got):\n%s", diff)
	}
	x, err = Explain(f.reg, ExplainOptions{Agent: "narrow"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"tool_find"}, explained(x, StatusCallable)); diff != "" {
		t.Errorf("narrow: callable (-want +got):\n%s", diff)
	}
	for _, name := range []string{decl.ToolBatch, decl.ToolLoad, decl.ToolMCPCall, "agent__one"} {
		if got := reasonsOf(x, name); !strings.Contains(got, "not matched by tools.allowed") || !slices.Contains(explained(x, StatusExcluded), name) {
			t.Errorf("%s: excluded %v, reasons %q", name, slices.Contains(explained(x, StatusExcluded), name), got)
		}
	}
	s = open(t, f.reg, "narrow", f.opts(&events{}))
	if diff := cmp.Diff([]string{"tool_find"}, toolNames(s.Tools())); diff != "" {
		t.Errorf("narrow: session tools (-want +got):\n%s", diff)
	}
	if r := call(t, s, decl.ToolBatch, `{"calls": []}`); r.OK {
		t.Errorf("agent__batch outside allowed answered: %+v", r)
	}
}

// Explain and a session of the same agent agree: the same code resolves both.
func TestExplainMatchesSession(t *testing.T) {
	agents := []decl.Agent{
		{Name: "plain", Use: useTools("entities_*", "summarize", "git")},
		{Name: "allowed", Use: useTools("*"), Allowed: []string{"entities_get", "sum", "registry_*"}, Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}},
		{Name: "lead", Use: useTools("read_file"), Spawn: true, Subagents: []string{"plain"}, Router: []string{"plain"}},
		{Name: "disc", Discovery: true, Use: useTools("registry_*")},
	}
	f := newFixture(agents...)
	for _, a := range agents {
		x, err := Explain(f.reg, ExplainOptions{Agent: a.Name})
		if err != nil {
			t.Fatal(err)
		}
		s := open(t, f.reg, a.Name, f.opts(&events{}))
		var visible []string
		for _, n := range toolNames(s.Tools()) {
			visible = append(visible, n)
		}
		if diff := cmp.Diff(visible, explained(x, StatusCallable)); diff != "" {
			t.Errorf("%s: session vs explain (-session +explain):\n%s", a.Name, diff)
		}
	}
}

func TestExplainStep(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("summarize"), Allowed: []string{"summarize", "github__search_code"}})
	x, err := Explain(f.reg, ExplainOptions{Step: "release/planner/review"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"github__get_file_contents", "github__search_code", "mcp_call_tool", "mcp_get_tool_schema", "mcp_list_tools"}
	if diff := cmp.Diff(want, explained(x, StatusCallable)); diff != "" {
		t.Errorf("step (-want +got):\n%s", diff)
	}
	if got := reasonsOf(x, "github__search_code"); got != "step release/planner/review bundles[0] bundle.code_read (direct, server github)" {
		t.Errorf("reason %q", got)
	}
	// with an agent whose tools.allowed is written, the step is cut to it
	x, _ = Explain(f.reg, ExplainOptions{Agent: "a", Step: "release/planner/review"})
	if got := reasonsOf(x, "github__get_file_contents"); !strings.Contains(got, "not matched by tools.allowed") {
		t.Errorf("reason %q", got)
	}
	x, _ = Explain(f.reg, ExplainOptions{Step: "release/planner/nope"})
	if len(explained(x, StatusCallable)) != 0 || !strings.Contains(strings.Join(x.Notes, "\n"), "deny by default") {
		t.Errorf("unrouted step: %+v", x)
	}
	x, _ = Explain(f.reg, ExplainOptions{Step: "release/planner/untrusted"})
	if len(explained(x, StatusCallable)) != 0 || !strings.Contains(strings.Join(x.Warnings, "\n"), "direct bundle of an untrusted server rejected") {
		t.Errorf("untrusted step: %+v", x)
	}
	if _, err := Explain(f.reg, ExplainOptions{Step: "bad"}); err == nil {
		t.Error("malformed step accepted")
	}
	if _, err := Explain(f.reg, ExplainOptions{Agent: "nobody"}); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Errorf("unknown agent: %v", err)
	}
}

func TestExplainDepthRestrictions(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Spawn: true, MaxDepth: 1})
	p := newPool(f.reg)
	tr := newTrace()
	r := p.resolveAgent(p.snap.Load(), &f.reg.Agents[0], 1, 0, tr)
	if r.spawn || !strings.Contains(strings.Join(tr.reasons[decl.ToolSpawnAgents], ";"), "reached max_depth 1") {
		t.Errorf("spawn %v reasons %q", r.spawn, tr.reasons[decl.ToolSpawnAgents])
	}
}
