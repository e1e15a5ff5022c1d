package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/internal/model"
)

// host is an MCP client that samples: each sampling/createMessage it
// receives is recorded and answered by the next scripted result.
type host struct {
	mu      sync.Mutex
	got     []*mcp.CreateMessageWithToolsParams
	answers []func(context.Context) (*mcp.CreateMessageWithToolsResult, error)
}

func (h *host) handle(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	h.mu.Lock()
	h.got = append(h.got, req.Params)
	if len(h.answers) == 0 {
		h.mu.Unlock()
		return nil, errors.New("no answer scripted")
	}
	next := h.answers[0]
	h.answers = h.answers[1:]
	h.mu.Unlock()
	return next(ctx)
}

// connectHost connects a go-sdk server to a go-sdk client over in-memory
// transports and returns the server's side of the session: what a tool
// handler of `serve` holds as req.Session.
func connectHost(t *testing.T, opts *mcp.ClientOptions, version string) *mcp.ServerSession {
	t.Helper()
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, opts)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return ss
}

// A turn with tools goes to the host as sampling/createMessage with the
// 2025-11-25 tool fields; its tool_use answer comes back as calls, and the
// results go back as tool_result blocks of one user message.
func TestSamplingToolTurns(t *testing.T) {
	h := &host{}
	h.answers = append(h.answers,
		func(context.Context) (*mcp.CreateMessageWithToolsResult, error) {
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "host-model", StopReason: "toolUse", Content: []mcp.Content{
				&mcp.TextContent{Text: "Reading both."},
				&mcp.ToolUseContent{ID: "u1", Name: "read_file", Input: map[string]any{"path": "a.txt"}},
				&mcp.ToolUseContent{ID: "u2", Name: "read_file", Input: map[string]any{"path": "b.txt"}},
			}}, nil
		},
		func(context.Context) (*mcp.CreateMessageWithToolsResult, error) {
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "host-model", StopReason: "endTurn",
				Content: []mcp.Content{&mcp.TextContent{Text: "a says hi; b is missing."}}}, nil
		})
	ss := connectHost(t, &mcp.ClientOptions{CreateMessageWithToolsHandler: h.handle}, "2025-11-25")
	if !model.CanSample(ss) {
		t.Fatal("CanSample = false for a host with CreateMessageWithToolsHandler")
	}
	temp := 0.2
	m := model.NewSampling(ss, model.SamplingConfig{Label: "claude-desktop", MaxTokens: 500, Temperature: &temp, Hints: []string{"claude-sonnet"}})
	tools, err := model.NewToolset([]model.Tool{{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t)
	msgs := []model.Message{model.NewUserMessage("What do a.txt and b.txt say?")}
	resp, err := m.Generate(ctx, &model.Request{System: "You read files.", Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []model.ToolCall{
		{ID: "u1", Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)},
		{ID: "u2", Name: "read_file", Args: json.RawMessage(`{"path":"b.txt"}`)},
	}
	if diff := cmp.Diff(wantCalls, resp.ToolCalls); diff != "" || resp.Text != "Reading both." || resp.StopReason != model.StopToolUse {
		t.Fatalf("first answer: text %q stop %q, calls (-want +got):\n%s", resp.Text, resp.StopReason, diff)
	}
	msgs = append(msgs, resp.Message,
		model.NewToolResult("u1", "hi", false),
		model.NewToolResult("u2", `tool "read_file": open b.txt: no such file`, true))
	resp, err = m.Generate(ctx, &model.Request{System: "You read files.", Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "a says hi; b is missing." || len(resp.ToolCalls) != 0 || resp.StopReason != model.StopEnd {
		t.Fatalf("second answer: %+v", resp)
	}
	if resp.Usage != (model.Usage{}) {
		t.Errorf("usage %+v: the host reports none", resp.Usage)
	}

	// What the host received, as JSON on the wire.
	if len(h.got) != 2 {
		t.Fatalf("host got %d requests", len(h.got))
	}
	// (go-sdk writes a message with one content block as an object.)
	sameJSON(t, "first request", wireJSON(t, h.got[0]), `{
		"systemPrompt": "You read files.", "maxTokens": 500, "temperature": 0.2,
		"modelPreferences": {"hints": [{"name": "claude-sonnet"}]},
		"tools": [{"name": "read_file", "description": "Read a file.",
			"inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}],
		"toolChoice": {"mode": "auto"},
		"messages": [{"role": "user", "content": {"type": "text", "text": "What do a.txt and b.txt say?"}}]}`)
	var second struct{ Messages json.RawMessage }
	json.Unmarshal([]byte(wireJSON(t, h.got[1])), &second)
	sameJSON(t, "second request's messages", string(second.Messages), `[
		{"role": "user", "content": {"type": "text", "text": "What do a.txt and b.txt say?"}},
		{"role": "assistant", "content": [{"type": "text", "text": "Reading both."},
			{"type": "tool_use", "id": "u1", "name": "read_file", "input": {"path": "a.txt"}},
			{"type": "tool_use", "id": "u2", "name": "read_file", "input": {"path": "b.txt"}}]},
		{"role": "user", "content": [
			{"type": "tool_result", "toolUseId": "u1", "content": [{"type": "text", "text": "hi"}]},
			{"type": "tool_result", "toolUseId": "u2", "content": [{"type": "text", "text": "tool \"read_file\": open b.txt: no such file"}], "isError": true}]}]`)
}

// sameJSON compares two JSON texts as values.
func sameJSON(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: want: %v", what, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// recorder keeps the params a Model sends, before they reach the host.
type recorder struct {
	model.Sampler
	mu  sync.Mutex
	got []*mcp.CreateMessageWithToolsParams
}

func (r *recorder) CreateMessageWithTools(ctx context.Context, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	r.mu.Lock()
	r.got = append(r.got, p)
	r.mu.Unlock()
	return r.Sampler.CreateMessageWithTools(ctx, p)
}

// The MCP form of a Toolset is made once and sent on every turn.
func TestSamplingToolsConvertedOnce(t *testing.T) {
	h := &host{}
	for range 3 {
		h.answers = append(h.answers, func(context.Context) (*mcp.CreateMessageWithToolsResult, error) {
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	rec := &recorder{Sampler: connectHost(t, &mcp.ClientOptions{CreateMessageWithToolsHandler: h.handle}, "2025-11-25")}
	m := model.NewSampling(rec, model.SamplingConfig{})
	one, _ := model.NewToolset([]model.Tool{{Name: "a"}})
	two, _ := model.NewToolset([]model.Tool{{Name: "a"}, {Name: "b"}})
	for _, ts := range []*model.Toolset{one, one, two} {
		if _, err := m.Generate(ctxFor(t), &model.Request{Messages: []model.Message{model.NewUserMessage("hi")}, Tools: ts}); err != nil {
			t.Fatal(err)
		}
	}
	if &rec.got[0].Tools[0] != &rec.got[1].Tools[0] {
		t.Error("the same Toolset was converted again")
	}
	if len(rec.got[2].Tools) != 2 || rec.got[2].Tools[1].Name != "b" {
		t.Errorf("a new Toolset was not converted: %v", rec.got[2].Tools)
	}
}

// wireJSON is a request as its JSON-RPC params go out.
func wireJSON(t *testing.T, p *mcp.CreateMessageWithToolsParams) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A user message after tool results goes on its own: MCP wants a message
// with tool results to hold only those.
func TestSamplingUserTextAfterResults(t *testing.T) {
	h := &host{}
	h.answers = append(h.answers, func(context.Context) (*mcp.CreateMessageWithToolsResult, error) {
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	ss := connectHost(t, &mcp.ClientOptions{CreateMessageWithToolsHandler: h.handle}, "2025-11-25")
	m := model.NewSampling(ss, model.SamplingConfig{})
	msgs := []model.Message{
		model.NewUserMessage("go"),
		{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: "c1", Name: "router__handoff-to", Args: json.RawMessage(`not json`)}}},
		model.NewToolResult("c1", "", false),
		model.NewUserMessage("You take over."),
	}
	resp, err := m.Generate(ctxFor(t), &model.Request{Messages: msgs})
	if err != nil || resp.Text != "ok" || resp.StopReason != model.StopEnd {
		t.Fatalf("resp %+v, err %v", resp, err)
	}
	got := wireJSON(t, h.got[0])
	var sent struct{ Messages json.RawMessage }
	json.Unmarshal([]byte(got), &sent)
	sameJSON(t, "messages", string(sent.Messages), `[
		{"role": "user", "content": {"type": "text", "text": "go"}},
		{"role": "assistant", "content": {"type": "tool_use", "id": "c1", "name": "router__handoff-to", "input": {}}},
		{"role": "user", "content": {"type": "tool_result", "toolUseId": "c1", "content": []}},
		{"role": "user", "content": {"type": "text", "text": "You take over."}}]`)
	if strings.Contains(got, `"tools"`) || strings.Contains(got, `"toolChoice"`) || !strings.Contains(got, `"maxTokens":8192`) {
		t.Errorf("a request without tools: %s", got)
	}
}

// CanSample needs sampling with tools, on a version where the server may
// ask during a call.
func TestCanSample(t *testing.T) {
	answer := func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: "x"}}, nil
	}
	withTools := func(context.Context, *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
		return nil, errors.New("unused")
	}
	for _, c := range []struct {
		name    string
		opts    *mcp.ClientOptions
		version string
		want    bool
	}{
		{"no sampling", nil, "2025-11-25", false},
		{"sampling without tools", &mcp.ClientOptions{CreateMessageHandler: answer}, "2025-11-25", false},
		{"sampling with tools", &mcp.ClientOptions{CreateMessageWithToolsHandler: withTools}, "2025-11-25", true},
		{"sampling with tools, 2025-06-18", &mcp.ClientOptions{CreateMessageWithToolsHandler: withTools}, "2025-06-18", true},
		{"sampling with tools, 2026-07-28", &mcp.ClientOptions{CreateMessageWithToolsHandler: withTools}, "2026-07-28", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := model.CanSample(connectHost(t, c.opts, c.version)); got != c.want {
				t.Errorf("CanSample = %v, want %v", got, c.want)
			}
		})
	}
	if model.CanSample(nil) {
		t.Error("CanSample(nil) = true")
	}
}

// A host that refuses (the user said no) or a cancelled call is an *Error
// naming the model.
func TestSamplingErrors(t *testing.T) {
	h := &host{}
	h.answers = append(h.answers, func(context.Context) (*mcp.CreateMessageWithToolsResult, error) {
		return nil, &jsonrpc.Error{Code: -1, Message: "User rejected sampling request"}
	})
	started, hostCancelled := make(chan struct{}), make(chan struct{})
	h.answers = append(h.answers, func(ctx context.Context) (*mcp.CreateMessageWithToolsResult, error) {
		close(started)
		<-ctx.Done() // the server's cancellation reaches the host
		close(hostCancelled)
		return nil, ctx.Err()
	})
	ss := connectHost(t, &mcp.ClientOptions{CreateMessageWithToolsHandler: h.handle}, "2025-11-25")
	m := model.NewSampling(ss, model.SamplingConfig{})
	req := &model.Request{Messages: []model.Message{model.NewUserMessage("hi")}}

	_, err := m.Generate(ctxFor(t), req)
	var me *model.Error
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "model host (sampling): the host refused sampling/createMessage (-1): User rejected sampling request") {
		t.Fatalf("err = %v", err)
	}

	ctx, cancel := context.WithCancel(ctxFor(t))
	done := make(chan error, 1)
	go func() { _, err := m.Generate(ctx, req); done <- err }()
	<-started // the host is answering
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
	<-hostCancelled

	_, err = m.Generate(ctxFor(t), &model.Request{Messages: req.Messages, JSONSchema: json.RawMessage(`{"type":"object"}`)})
	if err == nil || !strings.Contains(err.Error(), "structured") {
		t.Fatalf("JSON schema: err = %v", err)
	}
}
