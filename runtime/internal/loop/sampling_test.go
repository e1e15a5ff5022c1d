package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime"
)

// serveLead serves the lead session's agent__researcher over MCP, the way
// serve does: the host's session goes into the call's context.
func serveLead(t *testing.T, lead *runtime.Session, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "lead", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "agent__researcher", InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string"}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := lead.Call(withHost(ctx, req.Session), "agent__researcher", req.Params.Arguments)
			text := r.Result
			if !r.OK {
				text = r.Error
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: !r.OK}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return cs
}

// A host calls agent__researcher; the researcher has no model, so its
// loop runs on the host's through sampling/createMessage with tools: the
// host's model reads a file through the researcher's session, and the
// answer comes back as the call's result.
func TestSubagentOnHostModel(t *testing.T) {
	f := newFixture(t)
	lead, _ := f.open(t, "lead")
	var mu sync.Mutex
	var got []*mcp.CreateMessageWithToolsParams
	sample := func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, req.Params)
		switch len(got) {
		case 1:
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "host-model", StopReason: "toolUse",
				Content: []mcp.Content{&mcp.ToolUseContent{ID: "u1", Name: "read_file", Input: map[string]any{"path": "notes.txt"}}}}, nil
		case 2:
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "host-model", StopReason: "endTurn",
				Content: []mcp.Content{&mcp.TextContent{Text: "The notes say hello."}}}, nil
		}
		return nil, errors.New("unexpected request")
	}
	cs := serveLead(t, lead, &mcp.ClientOptions{CreateMessageWithToolsHandler: sample})
	res, err := cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "agent__researcher", Arguments: map[string]any{"prompt": "What does notes.txt say?"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != "The notes say hello." {
		t.Fatalf("result %q (error %v)", text, res.IsError)
	}
	if len(got) != 2 {
		t.Fatalf("host got %d sampling requests", len(got))
	}
	first := got[0]
	if first.SystemPrompt != "You read files and report what they say." || first.ToolChoice == nil || first.ToolChoice.Mode != "auto" {
		t.Errorf("first request: system %q, tool choice %+v", first.SystemPrompt, first.ToolChoice)
	}
	var names []string
	for _, tool := range first.Tools {
		names = append(names, tool.Name)
	}
	if !has(names, "read_file") || has(names, "barrier") {
		t.Errorf("tools offered to the host's model: %v", names)
	}
	last := got[1].Messages[len(got[1].Messages)-1]
	tr, ok := last.Content[0].(*mcp.ToolResultContent)
	if !ok || tr.ToolUseID != "u1" || tr.IsError || tr.Content[0].(*mcp.TextContent).Text != notes {
		t.Errorf("the file did not reach the host's model: %+v", last.Content[0])
	}
	f.log.require(t, 1, "agent.run", "agent", "researcher", "status", "completed", "turns", "2")
}

// A host that does not sample gets an error result that says why.
func TestSubagentWithoutModelOrSampling(t *testing.T) {
	f := newFixture(t)
	lead, _ := f.open(t, "lead")
	cs := serveLead(t, lead, nil)
	res, err := cs.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "agent__researcher", Arguments: map[string]any{"prompt": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, `sub-agent "researcher": agent researcher: it has no model`) || !strings.Contains(text, "sampling with tools") {
		t.Errorf("result %q (error %v)", text, res.IsError)
	}
}
