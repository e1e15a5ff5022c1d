package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// hostSession is the MCP session of a host that declared sampling and
// elicitation or neither (go-sdk, in memory), as serve puts it in a call's
// context.
func hostSession(t *testing.T, able bool) *mcp.ServerSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &mcp.ClientOptions{}
	if able {
		opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{}, nil
		}
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, opts).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return ss
}

// tool_find, tool_load and mcp_list_tools leave out what the calling host
// cannot use (a tool its server lists only to clients that can sample or
// elicit); without a host (the agent's own loop, the CLI) nothing is left
// out.
func TestDiscoveryAndMetaToolsFollowTheHost(t *testing.T) {
	f := newFixture(decl.Agent{Name: "h", Discovery: true,
		Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseBundle, Name: "web"}}})
	f.conn.needs = map[string]HostNeeds{"github/get_file_history": NeedsSampling, "scraper/fetch_page": NeedsElicitation}
	s := open(t, f.reg, "h", f.opts(&events{}))
	hosts := []struct {
		name string
		ctx  context.Context
		can  bool
	}{
		{"no host", context.Background(), true},
		{"a host that declared nothing", WithHost(context.Background(), hostSession(t, false)), false},
		{"a host that declared both", WithHost(context.Background(), hostSession(t, true)), true},
	}
	for _, h := range hosts {
		r := s.Call(h.ctx, decl.ToolFind, json.RawMessage(`{"query":"file history contents","limit":20}`))
		if !r.OK || strings.Contains(r.Result, "github__get_file_history") != h.can || !strings.Contains(r.Result, "github__get_file_contents") {
			t.Errorf("%s: tool_find = %v %s, want get_file_history found %v", h.name, r.OK, r.Result, h.can)
		}
		r = s.Call(h.ctx, decl.ToolMCPList, json.RawMessage(`{"server":"scraper"}`))
		if !r.OK || strings.Contains(r.Result, "fetch_page") != h.can {
			t.Errorf("%s: mcp_list_tools = %v %s, want fetch_page listed %v", h.name, r.OK, r.Result, h.can)
		}
	}
	r := s.Call(hosts[1].ctx, decl.ToolLoad, json.RawMessage(`{"names":["github__get_file_contents","github__get_file_history"]}`))
	if r.OK || !strings.Contains(r.Error, "sampling") || !strings.Contains(r.Error, "nothing was loaded") {
		t.Errorf("a host that declared nothing loads get_file_history: %v %q %q, want it refused, saying why", r.OK, r.Result, r.Error)
	}
	if r := s.Call(hosts[2].ctx, decl.ToolLoad, json.RawMessage(`{"names":["github__get_file_history"]}`)); !r.OK {
		t.Errorf("a host that declared both cannot load get_file_history: %s", r.Error)
	}
}
