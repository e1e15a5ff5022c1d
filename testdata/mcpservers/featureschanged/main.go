// Command featureschanged is a fixture MCP server whose prompts and
// resources change on demand: add_prompt and add_resource make the go-sdk
// send notifications/prompts/list_changed and
// notifications/resources/list_changed.
package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

func main() {
	// Declared from the start: a 2026-07-28 client subscribes only to the
	// list changes a server declares (subscriptions/listen), and this one
	// starts without prompts or resources.
	fixture.Capabilities = &mcp.ServerCapabilities{
		Prompts:   &mcp.PromptCapabilities{ListChanged: true},
		Resources: &mcp.ResourceCapabilities{ListChanged: true},
	}
	fixture.Main("featureschanged", func(s *mcp.Server) {
		schema := `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
		fixture.Tool(s, "add_prompt", "Add a prompt called name.", schema,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Name string }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				s.AddPrompt(&mcp.Prompt{Name: a.Name}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt " + a.Name}}}}, nil
				})
				return fixture.Text("added prompt " + a.Name), nil
			})
		fixture.Tool(s, "add_resource", "Add a resource fixture://name.", schema,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Name string }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				uri := "fixture://" + a.Name
				s.AddResource(&mcp.Resource{Name: a.Name, URI: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "resource " + a.Name}}}, nil
				})
				return fixture.Text("added resource " + uri), nil
			})
	})
}
