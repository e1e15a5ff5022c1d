package runtime

import (
	"context"
	"encoding/json"
	"os"
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
