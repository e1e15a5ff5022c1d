// Command listchanged is a fixture MCP server whose tool list changes on
// demand: add_tool and remove_tool make the go-sdk send
// notifications/tools/list_changed.
package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

func main() {
	fixture.Main("listchanged", func(s *mcp.Server) {
		schema := `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
		fixture.Tool(s, "add_tool", "Add a tool called name.", schema,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Name string }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				fixture.Tool(s, a.Name, "Added at run time.", `{"type":"object"}`,
					func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return fixture.Text(req.Params.Name), nil
					})
				return fixture.Text("added " + a.Name), nil
			})
		fixture.Tool(s, "remove_tool", "Remove the tool called name.", schema,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Name string }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				s.RemoveTools(a.Name)
				return fixture.Text("removed " + a.Name), nil
			})
	})
}
