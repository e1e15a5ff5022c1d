package mcpconn

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// host records what reaches the host that made a call.
type host struct {
	mu       sync.Mutex
	sampled  []*mcp.CreateMessageParams
	elicited []*mcp.ElicitParams
}

func (h *host) WantsProgress() bool                                { return false }
func (h *host) Progress(context.Context, float64, float64, string) {}
func (h *host) Log(context.Context, *mcp.LoggingMessageParams)     {}
func (h *host) CreateMessage(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sampled = append(h.sampled, p)
	return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "fine"}}, nil
}
func (h *host) Elicit(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.elicited = append(h.elicited, p)
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
}

// A server that floods the host with sampling and elicitation requests
// during one call gets MaxAsksPerCall of them through; the text reaching
// the host has no terminal escapes or control characters, and names the
// server.
func TestSamplingFloodCapped(t *testing.T) {
	m := NewManager(nil)
	defer m.Close()
	m.SetHostCapabilities(&mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}, Elicitation: &mcp.ElicitationCapabilities{}})
	// The flood is of server-to-client requests, which a server may send
	// only before 2026-07-28 (since then it asks in input-required rounds,
	// at most ten a call in go-sdk's client).
	c := acquire(t, m, fixture(newRecorder(), "flood", "-revisions", "2025-11-25"))
	defer c.Release()
	h := &host{}
	ctx, cancel := context.WithTimeout(WithCaller(context.Background(), h), time.Minute)
	defer cancel()
	for _, args := range []string{`{"sampling":500}`, `{"elicitation":200}`} {
		r, err := c.Call(ctx, "flood", []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		h.mu.Lock()
		n := len(h.sampled) + len(h.elicited)
		h.sampled, h.elicited = append(h.sampled[:0:0], h.sampled...), append(h.elicited[:0:0], h.elicited...)
		h.mu.Unlock()
		if n == 0 || n > 2*MaxAsksPerCall {
			t.Errorf("after %s the host was asked %d times, want 1..%d a call; server says %q", args, n, MaxAsksPerCall, r.Text())
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sampled) == 0 || len(h.sampled) > MaxAsksPerCall || len(h.elicited) == 0 || len(h.elicited) > MaxAsksPerCall {
		t.Errorf("the host got %d sampling and %d elicitation requests, want 1..%d each", len(h.sampled), len(h.elicited), MaxAsksPerCall)
	}
	var texts []string
	for _, p := range h.sampled {
		texts = append(texts, p.SystemPrompt, p.Messages[0].Content.(*mcp.TextContent).Text)
		if p.Meta["toolgen.dev/server"] != "flood" {
			t.Errorf("sampling _meta = %v, want toolgen.dev/server flood", p.Meta)
		}
	}
	for _, p := range h.elicited {
		texts = append(texts, p.Message)
		if !strings.Contains(p.Message, `server "flood"`) {
			t.Errorf("elicitation message %q does not name the server", p.Message)
		}
	}
	for _, s := range texts {
		if strings.ContainsAny(s, "\x1b\x07\x00\u009b") || !strings.Contains(s, "APPROVE") {
			t.Errorf("text reached the host as %q", s)
		}
	}
}
