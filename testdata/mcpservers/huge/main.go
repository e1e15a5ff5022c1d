// Command huge is a fixture MCP server whose tool returns as many bytes as
// asked for.
package main

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

func main() {
	fixture.Main("huge", func(s *mcp.Server) {
		fixture.Tool(s, "huge", "Return bytes characters of text.",
			`{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Bytes int }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				return fixture.Text(strings.Repeat("x", a.Bytes)), nil
			})
	})
}
