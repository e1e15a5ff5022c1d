package ir

import (
	"sync"
	"testing"
)

func TestLookups(t *testing.T) {
	spec := &Spec{
		Tools: []*Tool{
			{Name: "a", Kind: KindBuiltin},
			{Name: "b", Kind: KindGo, Go: &GoFunc{ImportPath: "x", Func: "B"}},
			{Name: "c", Kind: KindGo, Go: &GoFunc{ImportPath: "x", Func: "C"}},
		},
		Servers: []*Server{{Name: "s", Locked: []*LockedTool{{Name: "t1"}, {Name: "t2"}}}},
		Agents:  []*Agent{{Name: "coder"}, {Name: "writer"}},
	}
	// Emitters look up from several goroutines at once.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { _ = spec.Tool("a") })
	}
	wg.Wait()
	if spec.Tool("a") != spec.Tools[0] || spec.Tool("s") != nil {
		t.Error("Tool")
	}
	if g := spec.GoTools(); len(g) != 2 || g[0] != spec.Tools[1] || g[1] != spec.Tools[2] {
		t.Errorf("GoTools = %v", g)
	}
	if spec.Server("s") != spec.Servers[0] || spec.Server("a") != nil {
		t.Error("Server")
	}
	if spec.Agent("writer") != spec.Agents[1] || spec.Agent("s") != nil {
		t.Error("Agent")
	}
	if spec.LockedTool("s", "t2") != spec.Servers[0].Locked[1] || spec.LockedTool("s", "t3") != nil || spec.LockedTool("x", "t1") != nil {
		t.Error("LockedTool")
	}
}
