package mcpconn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestClientDeclaresSkillsExtension: a server on loopback HTTP sees the
// Skills extension, with empty settings, in the client's initialize
// capabilities (SEP-2133 negotiation; SEP-2640 defines no client settings).
func TestClientDeclaresSkillsExtension(t *testing.T) {
	got := make(chan *mcp.ClientCapabilities, 1)
	srv := mcp.NewServer(&mcp.Implementation{Name: "caps", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(_ context.Context, r *mcp.InitializedRequest) {
			got <- r.Session.InitializeParams().Capabilities
		},
	})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer h.Close()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, Config{Name: "caps", Transport: TransportHTTP, URL: h.URL, Logger: newRecorder().logger()})
	defer c.Release()
	var caps *mcp.ClientCapabilities
	select {
	case caps = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the server never saw notifications/initialized")
	}
	if caps == nil {
		t.Fatal("the client sent no capabilities")
	}
	settings, ok := caps.Extensions[SkillsExtension]
	if !ok {
		t.Fatalf("client extensions = %v, want %s", caps.Extensions, SkillsExtension)
	}
	if m, isObj := settings.(map[string]any); !isObj || len(m) != 0 {
		t.Errorf("%s settings = %#v, want an empty object", SkillsExtension, settings)
	}
}
