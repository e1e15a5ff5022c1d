// Command crash is a fixture MCP server that dies in the middle of a call:
// tools/call crash writes a last word on stderr and exits with status 3.
package main

import (
	"context"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

func main() {
	fixture.Main("crash", func(s *mcp.Server) {
		fixture.Tool(s, "crash", "Exit the server mid-call.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				log.Print("crashing on purpose")
				os.Exit(3)
				return nil, nil
			})
		fixture.Tool(s, "ok", "Answer ok.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return fixture.Text("ok"), nil
			})
	})
}
