package mcpconn

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func toolsNamed(names ...string) []Tool {
	out := make([]Tool, len(names))
	for i, n := range names {
		out[i] = Tool{Name: n}
	}
	return out
}

func needsByName(ts []Tool) map[string]Needs {
	out := map[string]Needs{}
	for _, t := range ts {
		out[t.Name] = t.Needs
	}
	return out
}

// What a tool needs is learnt from the lists the server gave under
// different declarations: a tool missing from a smaller declaration's list
// needs what it was listed with.
func TestNeedsFromListsUnderDeclarations(t *testing.T) {
	const both = NeedsSampling | NeedsElicitation
	steps := []struct {
		name     string
		declared Needs
		listed   []string
		relist   bool
		want     map[string]Needs
	}{
		{"bare first: nothing to compare with", 0, []string{"echo"}, false,
			map[string]Needs{"echo": 0}},
		{"with both: the new ones need both, until told apart", both, []string{"echo", "sample", "elicit"}, false,
			map[string]Needs{"echo": 0, "sample": both, "elicit": both}},
		{"with sampling only: sample needs sampling alone, elicit elicitation", NeedsSampling, []string{"echo", "sample"}, false,
			map[string]Needs{"echo": 0, "sample": NeedsSampling}},
		{"with both again: what was learnt stays", both, []string{"echo", "sample", "elicit"}, false,
			map[string]Needs{"echo": 0, "sample": NeedsSampling, "elicit": NeedsElicitation}},
		{"a tool the server adds later on the same session is anyone's", both, []string{"echo", "sample", "elicit", "added"}, true,
			map[string]Needs{"echo": 0, "sample": NeedsSampling, "elicit": NeedsElicitation, "added": 0}},
	}
	var ls listings
	var before []Tool
	for _, st := range steps {
		got := ls.learn(st.declared, toolsNamed(st.listed...), before, st.relist)
		before = got
		if g := needsByName(got); len(g) != len(st.want) {
			t.Errorf("%s: %v, want %v", st.name, g, st.want)
		} else {
			for n, w := range st.want {
				if g[n] != w {
					t.Errorf("%s: %s needs %b, want %b", st.name, n, g[n], w)
				}
			}
		}
	}
}

// Without a bare list there is nothing to tell a tool's needs by: every
// tool is usable by any host (as before they were learnt).
func TestNeedsWithoutASmallerList(t *testing.T) {
	var ls listings
	got := ls.learn(NeedsSampling|NeedsElicitation, toolsNamed("echo", "sample"), nil, false)
	for _, tl := range got {
		if tl.Needs != 0 {
			t.Errorf("%s needs %b with only one list, want nothing", tl.Name, tl.Needs)
		}
	}
	// A tool listed bare but hidden from sampling clients needs nothing.
	ls = listings{}
	ls.learn(0, toolsNamed("odd"), nil, false)
	ls.learn(NeedsSampling, nil, nil, false)
	if got := ls.learn(0, toolsNamed("odd"), nil, false); got[0].Needs != 0 {
		t.Errorf("a tool listed only without sampling needs %b, want nothing", got[0].Needs)
	}
}

// server-everything through a Manager: connected before any host declared
// (the bare list), then for a host with sampling and elicitation, its
// trigger tools carry what they need and its other tools nothing.
func TestNeedsOfServerEverything(t *testing.T) {
	bin := npmBin(t)
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, Config{
		Name: "everything", Command: filepath.Join(bin, "mcp-server-everything"), Args: []string{"stdio"},
		Env: nodeEnv(bin), StartupTimeout: 30 * time.Second,
	})
	defer c.Release()
	host := &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}, Elicitation: &mcp.ElicitationCapabilities{}}
	if !replacedBy(t, m.SetHostCapabilities(host)) {
		t.Fatal("the connection was not replaced for the host's capabilities")
	}
	const both = NeedsSampling | NeedsElicitation
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := needsByName(c.Tools())
		_, s := n["trigger-sampling-request"]
		_, e := n["trigger-elicitation-request"]
		if s && e {
			if n["trigger-sampling-request"] != both || n["trigger-elicitation-request"] != both {
				t.Errorf("trigger tools need %b and %b, want %b", n["trigger-sampling-request"], n["trigger-elicitation-request"], both)
			}
			if n["echo"] != 0 {
				t.Errorf("echo needs %b, want nothing", n["echo"])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("trigger tools never listed: %v", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
