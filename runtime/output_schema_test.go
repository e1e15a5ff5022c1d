package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// An MCP tool's result that breaks its outputSchema (or has none of the
// structured content the schema promises) is an error result and a
// tool.output_invalid event, never a success; a conforming one and a
// tool error pass as they are.
func TestOutputSchemaViolationFails(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}`)
	answers := map[string]*mcp.CallToolResult{
		"good":      {Content: []mcp.Content{&mcp.TextContent{Text: `{"temp":21.5}`}}, StructuredContent: map[string]any{"temp": 21.5}},
		"bad_type":  {Content: []mcp.Content{&mcp.TextContent{Text: `{"temp":"hot"}`}}, StructuredContent: map[string]any{"temp": "hot"}},
		"missing":   {Content: []mcp.Content{&mcp.TextContent{Text: `{}`}}, StructuredContent: map[string]any{}},
		"text_only": {Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}},
		"failed":    {Content: []mcp.Content{&mcp.TextContent{Text: "no station"}}, IsError: true},
	}
	for name, r := range answers {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return r, nil })
	}
	conn := newMemConnector()
	conn.add("weather", srv)
	reg := &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 10 * time.Second},
		Servers:   []decl.Server{{Name: "weather", Transport: "stdio", Trusted: true}},
		Agents:    []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "weather"}}}},
	}
	ev := &events{}
	s := open(t, reg, "a", Options{Logger: ev.logger(), Connector: conn})
	if r := call(t, s, "weather__good", `{}`); !r.OK {
		t.Errorf("good: %+v", r)
	}
	for _, name := range []string{"bad_type", "missing", "text_only"} {
		r := call(t, s, "weather__"+name, `{}`)
		if r.OK || !strings.Contains(r.Error, "output schema") {
			t.Errorf("%s: %+v, want an error naming the output schema", name, r)
		}
		ev.requireOne(t, "tool.output_invalid", "tool", "weather__"+name)
	}
	if r := call(t, s, "weather__failed", `{}`); r.OK || !strings.Contains(r.Error, "no station") {
		t.Errorf("failed: %+v, want the tool's own error", r)
	}
}
