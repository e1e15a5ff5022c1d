package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// diveRunner runs each child by calling every agent__<name> tool the
// child has, and also tries to go one level deeper than it was given.
type diveRunner struct {
	mu       sync.Mutex
	deepest  int
	ran      []string
	refusals []string
}

func (r *diveRunner) Run(ctx context.Context, child *Session, prompt string) (string, error) {
	depth := child.opts.Depth
	r.mu.Lock()
	r.deepest = max(r.deepest, depth)
	r.ran = append(r.ran, child.Agent())
	r.mu.Unlock()
	for _, name := range child.pool.agents[child.Agent()].Subagents {
		res := child.Call(ctx, decl.SubagentPrefix+name, json.RawMessage(`{"prompt":"go deeper"}`))
		if !res.OK {
			r.mu.Lock()
			r.refusals = append(r.refusals, child.Agent()+">"+name+": "+res.Error)
			r.mu.Unlock()
		}
	}
	return child.Agent() + " done", nil
}

// max_depth bounds agent__<name> like spawn_agents: lead → delegator →
// deep → leaf stops at deep (depth 2 with max_depth 2), with the same
// warning event, however large a max_depth the agents below declare.
func TestSubagentToolsBoundedByMaxDepth(t *testing.T) {
	for _, deeperBelow := range []bool{false, true} {
		agents := []decl.Agent{
			{Name: "lead", Subagents: []string{"delegator"}},
			{Name: "delegator", Subagents: []string{"deep"}},
			{Name: "deep", Subagents: []string{"leaf"}},
			{Name: "leaf"},
		}
		reg := &Registry{Defaults: decl.Defaults{MaxDepth: 2}, Agents: agents}
		if deeperBelow { // the lead's bound holds below agents that allow more
			reg.Defaults.MaxDepth = 9
			agents[0].MaxDepth = 2
		}
		ev := &events{}
		runner := &diveRunner{}
		s := open(t, reg, "lead", Options{Logger: ev.logger(), Runner: runner})
		r := call(t, s, "agent__delegator", `{"prompt":"start"}`)
		if !r.OK {
			t.Fatalf("agent__delegator: %+v", r)
		}
		if runner.deepest != 2 || strings.Join(runner.ran, ",") != "delegator,deep" {
			t.Errorf("deeper below %v: ran %v, deepest depth %d; want delegator,deep and depth 2", deeperBelow, runner.ran, runner.deepest)
		}
		if len(runner.refusals) != 1 || !strings.Contains(runner.refusals[0], `deep>leaf: tool "agent__leaf" not allowed for agent "deep"`) {
			t.Errorf("refusals %q", runner.refusals)
		}
		ev.requireOne(t, EventSubagentMaxDepth, "agent", "deep", "depth", "2", "max_depth", "2", "tools", "[agent__leaf]")
	}
}

// explain shows why agent__<name> is gone at a depth.
func TestExplainSubagentDepth(t *testing.T) {
	reg := &Registry{Defaults: decl.Defaults{MaxDepth: 2}, Agents: []decl.Agent{{Name: "deep", Subagents: []string{"leaf"}}, {Name: "leaf"}}}
	x, err := Explain(reg, ExplainOptions{Agent: "deep", Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := reasonsOf(x, "agent__leaf"); got != "removed: depth 2 reached max_depth 2" {
		t.Errorf("reason %q", got)
	}
	if !strings.Contains(strings.Join(x.Warnings, "\n"), "subagent.max_depth") {
		t.Errorf("warnings %q", x.Warnings)
	}
	x, _ = Explain(reg, ExplainOptions{Agent: "deep", Depth: 1})
	if got := reasonsOf(x, "agent__leaf"); got != "subagents: leaf (depth 1 < max_depth 2)" {
		t.Errorf("reason at depth 1 %q", got)
	}
}
