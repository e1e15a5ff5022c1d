package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime"
)

// ask is the fake session's "ask": what an upstream server does when it
// asks the host's user and model during a call, both at once.
func ask(ctx context.Context) runtime.Result {
	c := mcpconn.CallerFrom(ctx)
	if c == nil {
		return runtime.Result{Error: "no host"}
	}
	var wg sync.WaitGroup
	var name, reply string
	var errs [2]error
	wg.Add(2)
	go func() {
		defer wg.Done()
		r, err := c.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err == nil {
			name, _ = r.Content["name"].(string)
		}
		errs[0] = err
	}()
	go func() {
		defer wg.Done()
		r, err := c.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "greet"}}}})
		if err == nil {
			if t, ok := r.Content.(*mcp.TextContent); ok {
				reply = t.Text
			}
		}
		errs[1] = err
	}()
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		return runtime.Result{Error: fmt.Sprintf("asking the host: %v %v", errs[0], errs[1])}
	}
	return runtime.Result{OK: true, Result: reply + ", " + name}
}

// answeringClient is a host that can sample and elicit.
func answeringClient(t *testing.T, version string, connect func(*mcp.Client, *mcp.ClientSessionOptions) (*mcp.ClientSession, error)) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hello"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	cs, err := connect(c, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// What a call asks of its host reaches a 2026-07-28 host as an
// input-required round (both questions in one) and an older host as
// requests; both get the same answer, over memory and HTTP, side by side.
func TestInputRequiredRounds(t *testing.T) {
	s := New(newFakeSession(), Options{})
	defer s.Close()
	url := startHTTP(t, s)
	for _, tc := range []struct {
		name, version string
		connect       func(*mcp.Client, *mcp.ClientSessionOptions) (*mcp.ClientSession, error)
	}{
		{"memory-2026", StatelessRevision, inMemory(t, s)},
		{"http-2026", StatelessRevision, overHTTP(url)},
		{"http-2025", "2025-11-25", overHTTP(url)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := answeringClient(t, tc.version, tc.connect)
			if got := cs.InitializeResult().ProtocolVersion; got != tc.version {
				t.Fatalf("protocol = %s, want %s", got, tc.version)
			}
			res := call(t, cs, "ask", nil)
			if res.IsError || text(t, res) != "hello, Ada" {
				t.Fatalf("ask = %v %q, want hello, Ada", res.IsError, text(t, res))
			}
		})
	}
}

// The request state is the server's own: a state altered by the host, or
// answers without one, are refused; the first round asks both questions.
func TestInputRequiredStateIntegrity(t *testing.T) {
	s := New(newFakeSession(), Options{})
	defer s.Close()
	url := startHTTP(t, s)
	post := func(params string) map[string]any {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", StatelessRevision)
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "ask")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		line := string(b)
		if i := strings.Index(line, "data: "); i >= 0 {
			line = strings.TrimSpace(strings.SplitN(line[i+6:], "\n", 2)[0])
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("response %q: %v", b, err)
		}
		return m
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessRevision + `","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{"form":{}}}}`
	first := post(`{"name":"ask",` + meta + `}`)
	res, _ := first["result"].(map[string]any)
	if res["resultType"] != "input_required" {
		t.Fatalf("first round = %v, want input_required", first)
	}
	asks, _ := res["inputRequests"].(map[string]any)
	if len(asks) != 2 {
		t.Errorf("inputRequests = %v, want the elicitation and the sampling request in one round", asks)
	}
	state, _ := res["requestState"].(string)
	answers := `"inputResponses":{}`
	for _, tampered := range []string{state + "x", "x" + state, strings.Replace(state, ".", ".A", 1), strings.Replace(state, ".1.", ".2.", 1), "plain"} {
		got := post(`{"name":"ask",` + meta + `,"requestState":"` + tampered + `",` + answers + `}`)
		if got["error"] == nil {
			t.Errorf("state %q accepted: %v", tampered, got)
		}
	}
	// Answers without a state answer nothing: the call starts anew.
	if got := post(`{"name":"ask",` + meta + `,` + answers + `}`); got["result"].(map[string]any)["resultType"] != "input_required" {
		t.Errorf("inputResponses without requestState: %v, want a new call asking again", got)
	}
}
