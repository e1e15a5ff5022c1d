// Command manytools is a hostile MCP server: it lists as many tools as
// asked for (-tools), each with a description of -desc bytes, so that a
// host without caps on a tool list keeps them all.
package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

var (
	count = flag.Int("tools", 20000, "how many tools to list")
	desc  = flag.Int("desc", 0, "bytes of each tool's description")
)

func main() {
	fixture.Main("manytools", func(s *mcp.Server) {
		d := strings.Repeat("d", *desc)
		for i := range *count {
			fixture.Tool(s, fmt.Sprintf("t%06d", i), d, `{"type":"object"}`,
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return fixture.Text("ok"), nil
				})
		}
	})
}
