package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// askingSession is the fake session with two Go tools that ask the host
// the way runtime.AskAs and runtime.Required let a tool ask: "greet" asks
// the user's name under the name user_name; "needs_model" cannot work
// without the host's model.
type askingSession struct{ *fakeSession }

func (a askingSession) Tools() []runtime.ToolInfo {
	return append(a.fakeSession.Tools(),
		runtime.ToolInfo{Name: "greet", Description: "Asks the user's name.", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: decl.KindGo},
		runtime.ToolInfo{Name: "needs_model", Description: "Needs the host's model.", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: decl.KindGo})
}

func (a askingSession) Call(ctx context.Context, name string, args json.RawMessage) runtime.Result {
	switch name {
	case "greet":
		r, err := runtime.Elicit(runtime.AskAs(ctx, "user_name"), &mcp.ElicitParams{Message: "Your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return runtime.Result{Error: err.Error()}
		}
		n, _ := r.Content["name"].(string)
		return runtime.Result{OK: true, Result: "Hello, " + n + "!"}
	case "needs_model":
		r, err := runtime.Sample(runtime.Required(ctx), &mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return runtime.Result{Error: err.Error()}
		}
		return runtime.Result{OK: true, Result: r.Content.(*mcp.TextContent).Text}
	}
	return a.fakeSession.Call(ctx, name, args)
}

// post26 sends one 2026-07-28 JSON-RPC request and returns the HTTP status
// and the response message.
func post26(t *testing.T, url, method, name, params string) (int, map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", StatelessRevision)
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
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
	return resp.StatusCode, m
}

func meta(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessRevision + `","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
}

// A question a tool names reaches the host under that name; the host may
// answer it ahead, with extra answers it ignores, and then gets the
// result at once (SEP-2322: servers ignore what they do not recognize).
func TestNamedQuestions(t *testing.T) {
	s := New(askingSession{newFakeSession()}, Options{})
	defer s.Close()
	url := startHTTP(t, s)
	m := meta(`{"elicitation":{"form":{}}}`)

	_, first := post26(t, url, "tools/call", "greet", `{"name":"greet",`+m+`}`)
	res, _ := first["result"].(map[string]any)
	asks, _ := res["inputRequests"].(map[string]any)
	if res["resultType"] != "input_required" || asks["user_name"] == nil || len(asks) != 1 {
		t.Fatalf("first round = %v, want one question named user_name", first)
	}
	state, _ := res["requestState"].(string)
	_, second := post26(t, url, "tools/call", "greet", `{"name":"greet",`+m+`,"requestState":"`+state+`","inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}}}`)
	if got := resultText(second); got != "Hello, Ada!" {
		t.Errorf("answered round = %v, want Hello, Ada!", second)
	}

	_, ahead := post26(t, url, "tools/call", "greet", `{"name":"greet",`+m+`,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Bo"}},"unknown_extra_key":{"action":"accept","content":{"foo":"bar"}}}}`)
	if got := resultText(ahead); got != "Hello, Bo!" {
		t.Errorf("answered ahead, with extra keys = %v, want Hello, Bo! at once", ahead)
	}
}

// A tool that requires a capability the host did not declare gets the
// whole request refused with -32021 (HTTP 400) naming it as a
// ClientCapabilities object; a host that declared it is asked as usual.
func TestRequiredCapabilityMissing(t *testing.T) {
	s := New(askingSession{newFakeSession()}, Options{})
	defer s.Close()
	url := startHTTP(t, s)

	status, got := post26(t, url, "tools/call", "needs_model", `{"name":"needs_model",`+meta(`{}`)+`}`)
	e, _ := got["error"].(map[string]any)
	if status != http.StatusBadRequest || e == nil || e["code"] != float64(-32021) {
		t.Fatalf("undeclared sampling: HTTP %d %v, want 400 and -32021", status, got)
	}
	data, _ := e["data"].(map[string]any)
	req, _ := data["requiredCapabilities"].(map[string]any)
	if _, ok := req["sampling"].(map[string]any); !ok || len(req) != 1 {
		t.Errorf("error data = %v, want requiredCapabilities {sampling: {}}", e["data"])
	}

	_, asked := post26(t, url, "tools/call", "needs_model", `{"name":"needs_model",`+meta(`{"sampling":{}}`)+`}`)
	if res, _ := asked["result"].(map[string]any); res["resultType"] != "input_required" {
		t.Errorf("declared sampling: %v, want an input-required round", asked)
	}
	// An optional question (ask's sampling) is not refused: it fails
	// inside the tool, which reports it.
	_, optional := post26(t, url, "tools/call", "ask", `{"name":"ask",`+meta(`{"elicitation":{"form":{}}}`)+`}`)
	if optional["error"] != nil {
		t.Errorf("optional sampling refused as a request: %v", optional)
	}
}

func resultText(m map[string]any) string {
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		return ""
	}
	c, _ := content[0].(map[string]any)
	s, _ := c["text"].(string)
	return s
}

// An upstream server's prompt that asks the host's user while it renders
// reaches a 2026-07-28 host as input-required rounds of prompts/get; the
// host's answer reaches the server and the rendered prompt the host. The
// server is the conformance agent's upstream (a real go-sdk server over
// stdio); the host is go-sdk's client, which answers the rounds itself.
func TestPromptInputRequiredRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a fixture MCP server")
	}
	bin := filepath.Join(t.TempDir(), "upstream")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/conformance/upstream").CombinedOutput(); err != nil {
		t.Fatalf("build upstream: %v\n%s", err, out)
	}
	reg := &runtime.Registry{
		Package:   "servetest",
		Separator: "_",
		Servers:   []decl.Server{{Name: "test", Transport: "stdio", Command: bin, Trusted: true, StartupTimeout: 30 * time.Second}},
		Agents:    []decl.Agent{{Name: "prompter", Use: []decl.Use{{Kind: decl.UseServer, Name: "test"}}}},
	}
	ctx := context.Background()
	sess, err := runtime.Open(ctx, reg, "prompter", runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := New(sess, Options{})
	defer s.Close()
	url := startHTTP(t, s)
	asked := make(chan string, 4)
	c := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"context": "a code review"}}, nil
		},
	})
	for _, version := range []string{StatelessRevision, "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			cs, err := overHTTP(url)(c, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
			if err != nil {
				t.Fatalf("prompts/get: %v", err)
			}
			if len(res.Messages) != 1 || res.Messages[0].Content.(*mcp.TextContent).Text != "Answer with this context in mind: a code review" {
				t.Errorf("prompt = %+v, want it rendered with the host's answer", res.Messages)
			}
			select {
			case q := <-asked:
				if !strings.HasSuffix(q, "What context should the prompt use?") {
					t.Errorf("host was asked %q", q)
				}
			default:
				t.Error("the host was not asked")
			}
		})
	}
}
