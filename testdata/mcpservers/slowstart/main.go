// Command slowstart is a fixture MCP server that takes -delay before it
// starts serving, like a server that downloads or indexes on start.
package main

import (
	"context"
	"flag"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

var delay = flag.Duration("delay", time.Second, "wait before serving")

func main() {
	fixture.Main("slowstart", func(s *mcp.Server) {
		time.Sleep(*delay)
		fixture.Tool(s, "ok", "Answer ok.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return fixture.Text("ok"), nil
			})
	})
}
