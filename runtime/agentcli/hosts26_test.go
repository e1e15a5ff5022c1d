package agentcli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Two 2026-07-28 hosts use one `serve --http` agent at once: one declares
// sampling and elicitation, the other nothing. Their requests carry no
// session, so the agent serves them on one agent session; what each may
// be asked still follows its own request's declaration. The one that can
// answer gets server-everything's sampling and elicitation as
// input-required rounds every time, however the other's requests come in
// between; the one that cannot is never sent a round: its sampling fails
// and its elicitation is declined, each saying why.
func TestStatelessHostsEachTheirOwnCapabilities(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	url := serveGateway(t)
	stateless := &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"}
	plain, err := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, stateless)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	// The host that declares nothing comes first: the other's first list
	// must still hold the tools that need sampling and elicitation.
	if _, err := plain.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	h := &everythingHost{}
	able, err := h.client("able").Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, stateless)
	if err != nil {
		t.Fatal(err)
	}
	defer able.Close()

	plainCall := func(t *testing.T, tool string, args map[string]any) string {
		t.Helper()
		r, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err.Error() // refused for the whole request: fine, if it says why
		}
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	for i := range 3 {
		h.ask(t, ctx, able, "able") // lists first, then samples and elicits
		if _, err := plain.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		out := plainCall(t, "everything__trigger-sampling-request", map[string]any{"prompt": "Say hi to plain", "maxTokens": 20})
		if strings.Contains(out, "answer") || !strings.Contains(out, "sampl") {
			t.Errorf("round %d: sampling for the host that cannot sample = %q, want it refused, saying why", i, out)
		}
		out = plainCall(t, "everything__trigger-elicitation-request", map[string]any{})
		if strings.Contains(out, "Lovelace") || !strings.Contains(strings.ToLower(out), "decline") {
			t.Errorf("round %d: elicitation for the host that cannot elicit = %q, want it declined", i, out)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.sampled {
		if strings.Contains(s, "plain") {
			t.Errorf("the sampling host was asked the other host's question %q", s)
		}
	}
	if len(h.sampled) != 3 || len(h.elicits) != 3 {
		t.Errorf("the sampling host was asked %d sampling and %d elicitation questions, want 3 and 3", len(h.sampled), len(h.elicits))
	}
}
