package mcpconn

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Hosts that share the connections (serve --http's clients) each declare
// their own capabilities: a host without sampling that comes after one
// with it does not take sampling away from the shared connection, and
// the call of the host that has it is still answered. Once every host
// that declared sampling is gone, new connections no longer declare it,
// and the live one is not replaced for that.
func TestHostsDeclareTogether(t *testing.T) {
	m := NewManager(nil)
	defer m.Close()
	sampler := &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}
	<-m.DeclareHost("sampler", sampler)
	c := acquire(t, m, fixture(newRecorder(), "rounds", "-revisions", "2025-11-25"))
	defer c.Release()
	if replacedBy(t, m.DeclareHost("plain", &mcp.ClientCapabilities{})) {
		t.Error("a host without sampling replaced the connection the sampling host uses")
	}
	h := &host{}
	ctx, cancel := context.WithTimeout(WithCaller(context.Background(), h), 30*time.Second)
	defer cancel()
	if r, err := c.Call(ctx, "summarize", []byte(`{}`)); err != nil || r.IsError {
		t.Fatalf("summarize for the sampling host: %q, %v", r.Text(), err)
	}
	if got := declared(c.s.clientOptions()); got != (declaration{sampling: true}) {
		t.Errorf("with both hosts the connection declares %+v", got)
	}
	m.ForgetHost("sampler")
	if got := declared(c.s.clientOptions()); got != (declaration{}) {
		t.Errorf("after the sampling host left, a connection would declare %+v", got)
	}
	// A host declaring less than the live connection does keeps it: with
	// stateless hosts coming and going, replacing it for each would take
	// its tools away again and again.
	if replacedBy(t, m.DeclareHost("later", &mcp.ClientCapabilities{})) {
		t.Error("a host without sampling replaced a connection that declares more than it needs")
	}
	// One declaring more than it does replaces it.
	if !replacedBy(t, m.DeclareHost("eliciter", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}})) {
		t.Error("a host with elicitation did not replace a connection that declared none")
	}
}
