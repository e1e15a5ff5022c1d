// Command apps is the fixture MCP Apps server (the MCP Apps extension,
// io.modelcontextprotocol/ui): a tool whose _meta.ui names the ui://
// resource its view is rendered from (and the older flat
// "ui/resourceUri" key some hosts still read), the view itself as a
// text/html;profile=mcp-app resource with its own _meta.ui (CSP, border),
// and a result carrying structured data for the view. A gateway must pass
// all of it through unchanged.
package main

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

// ViewURI is the resource the tool's view is rendered from.
const viewURI = "ui://weather/forecast.html"

const view = `<!doctype html><html><body><div id="forecast"></div>
<script type="module">window.parent.postMessage({jsonrpc:"2.0",method:"ui/initialize",id:1},"*")</script></body></html>`

func main() {
	fixture.Main("apps", func(s *mcp.Server) {
		tool := &mcp.Tool{Name: "show_forecast", Title: "Forecast",
			Description: "Shows the forecast for a city in the host's UI.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			Meta: mcp.Meta{
				"ui":             map[string]any{"resourceUri": viewURI, "visibility": []any{"model", "app"}},
				"ui/resourceUri": viewURI,
			}}
		s.AddTool(tool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				City string `json:"city"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: "Sunny in " + args.City}},
				StructuredContent: map[string]any{"city": args.City, "days": []any{map[string]any{"day": "Mon", "sky": "sun"}}},
				Meta:              mcp.Meta{"ui": map[string]any{"resourceUri": viewURI}},
			}, nil
		})
		meta := mcp.Meta{"ui": map[string]any{
			"csp":           map[string]any{"connectDomains": []any{"https://api.weather.example"}, "resourceDomains": []any{}},
			"prefersBorder": true,
		}}
		s.AddResource(&mcp.Resource{Name: "forecast_view", URI: viewURI, MIMEType: "text/html;profile=mcp-app",
			Description: "The forecast view.", Meta: meta},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI,
					MIMEType: "text/html;profile=mcp-app", Text: view, Meta: meta}}}, nil
			})
	})
}
