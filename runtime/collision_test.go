package runtime

import (
	"context"
	"slices"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Under separator "-" the runtime's names are still reserved, and only
// they: a server or locked tool that would be exposed as agent__x or
// router__handoff-to never is, while agent-notes is an ordinary tool.
func TestReservedNamesUnderDashSeparator(t *testing.T) {
	conn := newMemConnector()
	conn.add("agent", mcpServer("", "notes", "x"))
	conn.add("router__handoff", mcpServer("", "to", "back"))
	reg := &Registry{
		Separator: "-",
		Servers: []decl.Server{
			{Name: "agent", Transport: "stdio", Command: "agent", Trusted: true},
			{Name: "router__handoff", Transport: "stdio", Command: "r", Trusted: true},
		},
		Tools: []decl.Tool{
			{Name: "agent__helper", Kind: decl.KindGo, Go: echoGo()},                      // a hand-built entry validate would refuse
			{Name: "agent__x", Kind: decl.KindMCP, Server: "agent", Original: "x"},        // a lock written under "__"
			{Name: "agent-notes", Kind: decl.KindMCP, Server: "agent", Original: "notes"}, // locked under "-"
		},
		Agents: []decl.Agent{
			{Name: "lead", Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}}, Subagents: []string{"x", "helper"}, Router: []string{"x"}},
			{Name: "x"}, {Name: "helper"},
		},
	}
	ev := &events{}
	check := func(when string, s *Session) {
		t.Helper()
		kinds := map[string]ToolKind{}
		for _, ti := range s.Tools() {
			kinds[ti.Name] = ti.Kind
		}
		for name, want := range map[string]ToolKind{
			"agent__x": decl.KindAgent, "agent__helper": decl.KindAgent, decl.ToolHandoff: decl.KindRouter,
			"agent-notes": decl.KindMCP, "agent-x": decl.KindMCP, "router__handoff-back": decl.KindMCP,
		} {
			if kinds[name] != want {
				t.Errorf("%s: %s is %q, want %q", when, name, kinds[name], want)
			}
		}
		for _, pt := range poolOf(t, reg).Tools() {
			if decl.IsReservedToolName(pt.Name) {
				t.Errorf("%s: the pool holds %s (%s)", when, pt.Name, pt.Kind)
			}
		}
	}
	s := open(t, reg, "lead", Options{Logger: ev.logger(), Connector: conn})
	check("connected", s)
	if r := call(t, s, "agent-notes", `{"q":"n"}`); !r.OK || r.Result != `notes:{"q":"n"}` {
		t.Errorf("agent-notes: %+v", r)
	}
	if r := call(t, s, "agent__x", `{"prompt":"p"}`); r.Kind != decl.KindAgent {
		t.Errorf("agent__x ran as %+v, want the sub-agent tool", r)
	}
	ev.requireOne(t, EventToolCollision, "tool", decl.ToolHandoff, "winner", "the runtime's own tool", "loser", `server router__handoff tool "to"`)
	ev.requireOne(t, EventToolCollision, "tool", "agent__helper", "loser", "declared tool agent__helper")

	// explain, over the lock file alone, agrees
	x, err := Explain(reg, ExplainOptions{Agent: "lead"})
	if err != nil {
		t.Fatal(err)
	}
	for _, et := range x.Tools {
		if et.Name == "agent__x" && et.Kind != decl.KindAgent {
			t.Errorf("explain: agent__x is %s", et.Kind)
		}
	}
	if !slices.Contains(explained(x, StatusCallable), "agent-notes") {
		t.Errorf("explain: agent-notes not callable: %v", explained(x, StatusCallable))
	}
}

// Server tools that clash after namespacing get one deterministic winner
// (declared tools first, then the server that sorts first, then the tool
// name that sorts first) and one tool.collision event naming both, not
// one per rebuild or session.
func TestRuntimeCollisions(t *testing.T) {
	conn := newMemConnector()
	conn.add("a", mcpServer("", "b__c", "d", "e"))
	conn.add("a__b", mcpServer("", "c", "f"))
	conn.add("gh", mcpServer("", "x_y", "x.y"))
	reg := &Registry{
		Separator: "__",
		Servers: []decl.Server{
			{Name: "a", Transport: "stdio", Command: "a", Trusted: true},
			{Name: "a__b", Transport: "stdio", Command: "ab", Trusted: true},
			{Name: "gh", Transport: "stdio", Command: "gh", Trusted: true},
		},
		Tools:  []decl.Tool{{Name: "a__d", Kind: decl.KindGo, Go: echoGo()}},
		Agents: []decl.Agent{{Name: "all", Use: []decl.Use{{Kind: decl.UseServer, Name: "a__b"}, {Kind: decl.UseServer, Name: "gh"}, {Kind: decl.UseServer, Name: "a"}, {Kind: decl.UseTool, Name: "a__d"}}}},
	}
	ev := &events{}
	s := open(t, reg, "all", Options{Logger: ev.logger(), Connector: conn})
	for name, want := range map[string]string{
		"a__b__c": `b__c:{}`, // server a sorts before a__b
		"gh__x_y": `x.y:{}`,  // "x.y" sorts before "x_y"
		"a__d":    `{}`,      // the declared tool, not server a's d
		"a__b__f": `f:{}`,
	} {
		if r := call(t, s, name, `{}`); !r.OK || r.Result != want {
			t.Errorf("%s = %+v, want %s", name, r, want)
		}
	}
	for _, c := range []collision{
		{"a__b__c", `server a tool "b__c"`, `server a__b tool "c"`},
		{"gh__x_y", `server gh tool "x.y"`, `server gh tool "x_y"`},
		{"a__d", "declared tool a__d", `server a tool "d"`},
	} {
		ev.requireOne(t, EventToolCollision, "tool", c.name, "winner", c.winner, "loser", c.loser)
	}
	// once per new collision: another session, a switch and a rebuild of
	// the pool after a list change report nothing again
	s2 := open(t, reg, "all", Options{Logger: ev.logger(), Connector: conn})
	if err := s2.Switch(context.Background(), "all"); err != nil {
		t.Fatal(err)
	}
	poolOf(t, reg).setLive("gh", []UpstreamTool{{Name: "x_y"}, {Name: "x.y"}, {Name: "z"}})
	s.st.Load().reportCollisions()
	if n := len(ev.named(EventToolCollision)); n != 3 {
		t.Errorf("%d tool.collision events, want 3", n)
	}
	// a new clash is reported when it appears
	poolOf(t, reg).setLive("gh", []UpstreamTool{{Name: "x_y"}, {Name: "x.y"}, {Name: "z"}, {Name: "z_"}, {Name: "z!"}})
	s.st.Load().reportCollisions()
	ev.requireOne(t, EventToolCollision, "tool", "gh__z_", "winner", `server gh tool "z!"`, "loser", `server gh tool "z_"`)
	if n := len(ev.named(EventToolCollision)); n != 4 {
		t.Errorf("%d tool.collision events, want 4", n)
	}
}
