package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Calls, tool_load, ToolsForStep, Subscribe and Switch all at once: run
// with -race. Every call returns a result; none panics or hangs.
func TestConcurrentSessionUse(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "a", Discovery: true, Use: append(useTools("registry_*", "entities_*"), decl.Use{Kind: decl.UseServer, Name: "github"})},
		decl.Agent{Name: "b", Use: useTools("summarize", "entities_get"), Subagents: []string{"a"}},
	)
	s, err := Open(context.Background(), f.reg, "a", f.opts(&events{}))
	if err != nil {
		t.Fatal(err)
	}
	var notified atomic.Int64
	cancelSub := s.Subscribe(func() { notified.Add(1) })
	defer cancelSub()
	ctx := context.Background()
	var wg sync.WaitGroup
	var results atomic.Int64
	for i := range 8 {
		wg.Go(func() {
			names := []string{"registry_list", "entities_get", "summarize", "github__search_code", decl.ToolLoad, decl.ToolFind, decl.ToolActive, "nope"}
			for j := range 200 {
				name := names[(i+j)%len(names)]
				args := `{}`
				switch name {
				case decl.ToolLoad:
					args = `{"names":["registry_list","entities_get"]}`
				case decl.ToolFind:
					args = `{"query":"entity"}`
				}
				s.Call(ctx, name, json.RawMessage(args))
				results.Add(1)
				_ = s.Tools()
			}
		})
	}
	wg.Go(func() {
		for range 3 {
			s.ToolsForStep(ctx, "release", "planner", "review")
		}
	})
	wg.Go(func() {
		for i := range 6 {
			agent := "b"
			if i%2 == 1 {
				agent = "a"
			}
			if err := s.Switch(ctx, agent); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	if results.Load() != 8*200 {
		t.Errorf("%d calls returned", results.Load())
	}
	if notified.Load() < 6 {
		t.Errorf("subscribers notified %d times for 6 switches", notified.Load())
	}
	s.Close()
	if _, live := f.conn.count("github"); live != 0 {
		t.Errorf("%d github connections left", live)
	}
}
