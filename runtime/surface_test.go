package runtime

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// TestLargeOutputTruncatedWithoutOutputRead: an agent that does not offer
// output_read gets the start of a large output and a note, not a handle
// to a tool it cannot call; nothing is written to the spill directory.
func TestLargeOutputTruncatedWithoutOutputRead(t *testing.T) {
	out := strings.Repeat("é", 100) // 200 bytes, two per rune
	f := newFixture(decl.Agent{Name: "a", Use: useTools("big")}).withTools(decl.Tool{Name: "big", Kind: decl.KindGo,
		Go: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(out), nil }})
	f.reg.Defaults.ResponseMaxBytes = 65
	o := f.opts(&events{})
	o.SpillDir = t.TempDir()
	s := open(t, f.reg, "a", o)
	got := mustOK(t, call(t, s, "big", `{}`))
	want := strings.Repeat("é", 32) + "\n… [output truncated: 64 of 200 bytes shown; an agent with runtime.output_read in tools.use can page through the whole output]"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if entries, _ := os.ReadDir(o.SpillDir); len(entries) != 0 {
		t.Errorf("spilled without output_read: %v", entries)
	}
}

// TestAliasListedUnderItsName: a tool with an alias is listed under the
// name the agent chose, so hosts that check a call's name against
// tools/list accept it; its own name still answers calls.
func TestAliasListedUnderItsName(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "a", Use: useTools("summarize", "entities_get"), Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}},
		decl.Agent{Name: "b", Use: useTools("summarize"), Allowed: []string{"sum"}, Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}},
	)
	for _, agent := range []string{"a", "b"} {
		s := open(t, f.reg, agent, f.opts(&events{}))
		want := []string{"entities_get", "sum"}
		if agent == "b" {
			want = []string{"sum"}
		}
		if diff := cmp.Diff(want, toolNames(s.Tools())); diff != "" {
			t.Errorf("%s: tools (-want +got):\n%s", agent, diff)
		}
		var desc string
		for _, ti := range s.Tools() {
			if ti.Name == "sum" {
				desc = ti.Description
			}
		}
		if desc == "" {
			t.Errorf("%s: sum is listed without summarize's description", agent)
		}
		mustOK(t, call(t, s, "sum", `{}`))
		mustOK(t, call(t, s, "summarize", `{}`))
	}
}

// Seed tool-orchestration, scenario "Allowed tool invoked".
func TestAllowedToolInvoked(t *testing.T) {
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

// Seed tool-orchestration, scenario "Blocked tool invoked".
func TestBlockedToolInvoked(t *testing.T) {
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

// Seed tool-orchestration, scenario "Wildcard allow-all".
func TestWildcardAllowAll(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("entities_*", "summarize"), Allowed: []string{"*"}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	if diff := cmp.Diff([]string{"entities_create", "entities_delete", "entities_get", "entities_update", "summarize"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if r := call(t, s, "graph_traverse", `{}`); r.OK {
		t.Error(`"*" allowed a tool outside use`)
	}
}

// Seed tool-orchestration, scenario "Alias resolved".
func TestAliasResolved(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("summarize"), Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	for _, name := range []string{"sum", "summarize"} {
		if out := mustOK(t, call(t, s, name, `{"x":1}`)); out != `{"x":1}` {
			t.Errorf("%s: %q", name, out)
		}
	}
}

// Seed tool-orchestration, scenario "Alias in allow-list".
func TestAliasInAllowList(t *testing.T) {
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

// Seed tool-orchestration: Generated allow switch.
func TestGeneratedAllowSwitch(t *testing.T) {
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

// Seed tool-orchestration, scenario "Tool metadata exposed".
func TestToolMetadataExposed(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "docs"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	ti := infoOf(s.Tools(), "docs__search_docs")
	if ti.Description != "The search docs tool." || !strings.Contains(string(ti.InputSchema), `"q"`) || ti.Kind != decl.KindMCP || ti.Namespace != "docs" {
		t.Errorf("metadata %+v", ti)
	}
}
