package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
)

// requireCapped checks an error result against the error cap: at most
// pipeline.MaxErrorBytes of the message and a note of how much was cut.
func requireCapped(t *testing.T, what string, r Result, total int) {
	t.Helper()
	if r.OK {
		t.Fatalf("%s: want an error result", what)
	}
	if len(r.Error) > pipeline.MaxErrorBytes+64 {
		t.Errorf("%s: error of %d bytes, want at most %d plus the note", what, len(r.Error), pipeline.MaxErrorBytes)
	}
	if total > pipeline.MaxErrorBytes && !strings.HasSuffix(r.Error, "bytes truncated)") {
		t.Errorf("%s: no truncation note: …%s", what, r.Error[max(0, len(r.Error)-80):])
	}
	if !utf8.ValidString(r.Error) {
		t.Errorf("%s: the cut split a rune", what)
	}
}

// A 1 MB argument echoed back by a failing tool (Go or MCP) or in a
// blocked call's tool name comes back capped: errors are never spilled.
func TestErrorResultsAreCapped(t *testing.T) {
	huge := strings.Repeat("é", 512<<10) // 1 MB, two bytes a rune: a cut must not split one
	conn := newMemConnector()
	srv := mcp.NewServer(&mcp.Implementation{Name: "parrot", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "fail", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "bad input: " + string(req.Params.Arguments)}}}, nil
		})
	conn.add("parrot", srv)
	reg := &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ResponseMaxBytes: 100000},
		Servers:   []decl.Server{{Name: "parrot", Transport: "stdio", Trusted: true}},
		Tools: []decl.Tool{{Name: "echo_err", Kind: decl.KindGo, Go: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			return nil, fmt.Errorf("cannot use %s", args)
		}}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "echo_err"}, {Kind: decl.UseServer, Name: "parrot"}}}},
	}
	ev := &events{}
	s := open(t, reg, "a", Options{Logger: ev.logger(), Connector: conn})
	arg := `{"text":"` + huge + `"}`

	requireCapped(t, "Go tool error", call(t, s, "echo_err", arg), len(arg))
	requireCapped(t, "MCP isError", call(t, s, "parrot__fail", arg), len(arg))
	r := call(t, s, "no_such_"+huge, `{}`)
	requireCapped(t, "blocked call", r, 0) // answered without the name
	if !strings.Contains(r.Error, "not found") || strings.Contains(r.Error, "éé") {
		t.Errorf("blocked call of a huge name: %s", r.Error)
	}
	for _, e := range ev.named(EventToolBlocked) {
		if len(e.Attrs["tool"]) > 1024 {
			t.Errorf("tool.blocked event carries a %d-byte name", len(e.Attrs["tool"]))
		}
	}
	for _, e := range ev.named(EventToolCall) {
		if len(e.Attrs["error"]) > pipeline.MaxErrorBytes+64 {
			t.Errorf("tool.call event carries a %d-byte error", len(e.Attrs["error"]))
		}
	}

	// a short error is left as it is
	if r := call(t, s, "echo_err", `{"a":1}`); r.Error != `cannot use {"a":1}` {
		t.Errorf("short error changed: %q", r.Error)
	}
}
