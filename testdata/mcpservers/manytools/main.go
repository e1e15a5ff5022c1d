// Command manytools is a hostile MCP server: it lists as many tools as
// asked for (-tools), each with a description of -desc bytes, so that a
// host without caps on a tool list keeps them all.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

var (
	count = flag.Int("tools", 20000, "how many tools to list")
	desc  = flag.Int("desc", 0, "bytes of each tool's description")
	pages = flag.String("pages-file", "", "append a line (the pid) to this file for every tools/list request")
)

func main() {
	fixture.Main("manytools", func(s *mcp.Server) {
		if *pages != "" {
			s.AddReceivingMiddleware(countPages)
		}
		d := strings.Repeat("d", *desc)
		for i := range *count {
			fixture.Tool(s, fmt.Sprintf("t%06d", i), d, `{"type":"object"}`,
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return fixture.Text("ok"), nil
				})
		}
	})
}

// countPages records each tools/list request (a line with the pid), so a test can see that the
// client stopped asking once it was over its cap.
func countPages(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			f, err := os.OpenFile(*pages, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				return nil, err
			}
			fmt.Fprintln(f, os.Getpid())
			if err := f.Close(); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}
