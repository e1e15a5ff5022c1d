// Command rounds is a fixture MCP server whose tools ask the client
// something before they answer, the 2026-07-28 way: an input-required
// result (elicitation or sampling) that the client answers and retries
// with, carrying the server's request state. go-sdk turns the same tools
// into server-to-client requests for a client of an older revision. Run
// with -revisions 2026-07-28 it speaks that revision only.
package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

func main() {
	fixture.Main("rounds", func(s *mcp.Server) {
		fixture.Tool(s, "confirm", "Ask the user to confirm, then say what they answered.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				resp, ok := req.Params.InputResponses["confirm"]
				if !ok {
					return &mcp.CallToolResult{
						InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
							Message:         "Proceed?",
							RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}},
						}},
						RequestState: "confirm-state-1",
					}, nil
				}
				if req.Params.RequestState != "" && req.Params.RequestState != "confirm-state-1" {
					return fixture.Text("request state altered: " + req.Params.RequestState), nil
				}
				r, ok := resp.(*mcp.ElicitResult)
				if !ok {
					return nil, fmt.Errorf("confirm: answered with %T", resp)
				}
				b, err := json.Marshal(r.Content)
				if err != nil {
					return nil, err
				}
				return fixture.Text(fmt.Sprintf("%s: %s", r.Action, b)), nil
			})
		fixture.Tool(s, "summarize", "Ask the client's model for a summary.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				resp, ok := req.Params.InputResponses["summary"]
				if !ok {
					return &mcp.CallToolResult{
						InputRequests: mcp.InputRequestMap{"summary": &mcp.CreateMessageParams{
							Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize the rounds."}}},
							MaxTokens: 50,
						}},
					}, nil
				}
				b, err := json.Marshal(resp)
				if err != nil {
					return nil, err
				}
				return fixture.Text("sampled: " + string(b)), nil
			})
		fixture.Tool(s, "meta", "The _meta the call came with.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				b, err := json.Marshal(req.Params.Meta)
				if err != nil {
					return nil, err
				}
				return fixture.Text(string(b)), nil
			})
	})
}
