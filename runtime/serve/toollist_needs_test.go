package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A session whose upstream lists some tools only to hosts that can sample
// or elicit: each host is shown the tools it can use, by what it declared
// at initialize (2025) or in the request's _meta (2026-07-28), across
// pages, from lists shared by the hosts that declared the same.
func TestToolListPerHostCapabilities(t *testing.T) {
	sess := newFakeSession()
	schema := json.RawMessage(`{"type":"object"}`)
	var tools []runtime.ToolInfo
	for i := range 2*listPageSize + 10 { // three pages; the needy ones spread over them
		tl := runtime.ToolInfo{Name: fmt.Sprintf("up__t%04d", i), InputSchema: schema, Kind: decl.KindMCP, Namespace: "up"}
		switch i % 3 {
		case 1:
			tl.Needs = runtime.NeedsSampling
		case 2:
			tl.Needs = runtime.NeedsElicitation
		}
		tools = append(tools, tl)
	}
	sess.tools = tools
	s := New(sess, Options{})
	defer s.Close()
	url := startHTTP(t, s)

	connect := func(version string, sampling, elicitation bool) *mcp.ClientSession {
		opts := &mcp.ClientOptions{}
		if sampling {
			opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{}, nil
			}
		}
		if elicitation {
			opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, opts).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	want := func(can runtime.HostNeeds) []string {
		var out []string
		for _, tl := range tools {
			if tl.Needs&^can == 0 {
				out = append(out, tl.Name)
			}
		}
		return out
	}
	for _, c := range []struct {
		version               string
		sampling, elicitation bool
		can                   runtime.HostNeeds
	}{
		{"2025-11-25", true, true, runtime.NeedsSampling | runtime.NeedsElicitation},
		{"2025-11-25", false, false, 0},
		{"2025-06-18", true, false, runtime.NeedsSampling},
		{"2026-07-28", false, false, 0},
		{"2026-07-28", false, true, runtime.NeedsElicitation},
		{"2026-07-28", true, true, runtime.NeedsSampling | runtime.NeedsElicitation},
	} {
		cs := connect(c.version, c.sampling, c.elicitation)
		var got []string
		for _, tl := range listAll(t, cs) {
			got = append(got, tl.Name)
		}
		// A list that varies with the request's capabilities is never
		// cached for another set: private to the host, stale at once.
		if c.version == StatelessRevision {
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.TTLMs != 0 || res.CacheScope != "private" {
				t.Errorf("2026-07-28 tools/list cached for %d ms, scope %q; want 0, private", res.TTLMs, res.CacheScope)
			}
		}
		if w := want(c.can); !slices.Equal(got, w) {
			t.Errorf("%s host, sampling %v, elicitation %v: listed %d tools %v…, want %d", c.version, c.sampling, c.elicitation, len(got), got[:min(len(got), 4)], len(w))
		}
	}
	// One list per capability set, shared; the full one when nothing is hidden.
	s.mu.Lock()
	l := s.list
	s.mu.Unlock()
	if l.forHost(0) != l.forHost(0) || l.forHost(0) == l {
		t.Error("the list of hosts that declared nothing is not made once")
	}
	if l.forHost(runtime.NeedsSampling|runtime.NeedsElicitation) != l {
		t.Error("a host that declared everything does not get the full list")
	}
}

// BenchmarkToolListForHost is what tools/list costs the server past
// go-sdk: a host's list (forHost) and its first page, 200 tools, for a
// host that declared nothing. "anyone": no tool needs anything (the
// list itself); "filtered": a third need sampling (the filtered list,
// made once and kept on the shared one).
func BenchmarkToolListForHost(b *testing.B) {
	for _, needy := range []bool{false, true} {
		name := "anyone"
		if needy {
			name = "filtered"
		}
		b.Run(name, func(b *testing.B) {
			var tools []runtime.ToolInfo
			for i := range 200 {
				tl := runtime.ToolInfo{Name: fmt.Sprintf("up__t%04d", i), InputSchema: json.RawMessage(`{"type":"object"}`), Kind: decl.KindMCP, Namespace: "up"}
				if needy && i%3 == 0 {
					tl.Needs = runtime.NeedsSampling
				}
				tools = append(tools, tl)
			}
			l := listOf(slices.Values(ptrs(tools)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.forHost(0).page(nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ptrs(ts []runtime.ToolInfo) []*runtime.ToolInfo {
	out := make([]*runtime.ToolInfo, len(ts))
	for i := range ts {
		out[i] = &ts[i]
	}
	return out
}
