package mcpconn

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostCaller is a Caller of one host (who); it answers nothing.
type hostCaller struct{ who any }

func (hostCaller) WantsProgress() bool                                { return false }
func (hostCaller) Progress(context.Context, float64, float64, string) {}
func (hostCaller) Log(context.Context, *mcp.LoggingMessageParams)     {}
func (h hostCaller) Host() any                                        { return h.who }
func (hostCaller) Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return nil, nil
}
func (hostCaller) CreateMessage(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return nil, nil
}

// anonCaller cannot tell its host.
type anonCaller struct{ hostCaller }

func (anonCaller) Host() any { return nil }

// A server's request while calls of two hosts overlap is refused, not sent
// to the latest call's host; calls of one host, or callers that cannot
// tell their host, go to the latest call as before.
func TestAskRefusedWhileHostsOverlap(t *testing.T) {
	now := time.Now()
	a1, a2, b := hostCaller{"A"}, hostCaller{"A"}, hostCaller{"B"}

	var one calls
	one.add(a1)
	one.add(a2)
	if c, refused := one.ask(now); refused != "" || c != a2 {
		t.Errorf("two calls of host A: %v %q, want the latest call's caller", c, refused)
	}

	var two calls
	idA := two.add(a1)
	two.add(b)
	if c, refused := two.ask(now); refused == "" || c != nil {
		t.Errorf("calls of hosts A and B: %v, want refused", c)
	}
	two.remove(idA)
	if c, refused := two.ask(now); refused != "" || c != b {
		t.Errorf("host A's call done: %v %q, want host B's", c, refused)
	}

	var anon calls
	anon.add(a1)
	anon.add(anonCaller{b})
	if c, refused := anon.ask(now); refused != "" || c == nil {
		t.Errorf("a caller that cannot tell its host: %v %q, want the latest call's caller", c, refused)
	}
}
