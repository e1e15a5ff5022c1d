// Command badschema is a fixture MCP server whose tools/list carries input
// schemas a go-sdk server would refuse: a non-object type, a bare array, no
// schema at all, a type list. The go-sdk will not register such tools, so a
// middleware rewrites the list on the way out.
package main

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

var bad = []*mcp.Tool{
	{Name: "string_typed", Description: "type is string", InputSchema: json.RawMessage(`{"type":"string"}`)},
	{Name: "array_schema", Description: "schema is an array", InputSchema: json.RawMessage(`[1,2,3]`)},
	{Name: "no_schema", Description: "no inputSchema"},
	{Name: "untyped", Description: "no type", InputSchema: json.RawMessage(`{"properties":{"a":{"type":"string"}}}`)},
	{Name: "nullable", Description: "type list", InputSchema: json.RawMessage(`{"type":["object","null"]}`)},
}

func main() {
	fixture.Main("badschema", func(s *mcp.Server) {
		fixture.Tool(s, "good", "A well-formed tool.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return fixture.Text("good"), nil
			})
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
					lr.Tools = append(lr.Tools, bad...)
				}
				return res, err
			}
		})
	})
}
