package serve

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stateless host is named once, whether its declaration comes again as
// the same value (a lean path's cached _meta) or as a new one (go-sdk's
// path decodes each request), and hosts taking turns are each named once.
func TestStatelessHostsNamedOnce(t *testing.T) {
	var h statelessHosts
	a := &mcp.InitializeParams{ProtocolVersion: StatelessRevision, ClientInfo: &mcp.Implementation{Name: "a", Version: "1"}}
	b := &mcp.InitializeParams{ProtocolVersion: StatelessRevision, ClientInfo: &mcp.Implementation{Name: "b", Version: "1"}}
	aAgain := &mcp.InitializeParams{ProtocolVersion: StatelessRevision, ClientInfo: &mcp.Implementation{Name: "a", Version: "1"}}
	for i, tc := range []struct {
		p    *mcp.InitializeParams
		want bool
	}{{a, true}, {a, false}, {b, true}, {a, false}, {aAgain, false}, {b, false}, {b, false}} {
		if got := h.first(tc.p); got != tc.want {
			t.Errorf("call %d (%s): first = %v, want %v", i, tc.p.ClientInfo.Name, got, tc.want)
		}
	}
}
