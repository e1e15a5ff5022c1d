// Command echo is the plain fixture MCP server: echo, sleep (honours
// cancellation and says so on stderr), fail (a tool error) and pid, plus
// -tools N generated tools for pagination tests. It serves over any
// transport (-transport).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

var (
	extra = flag.Int("tools", 0, "add this many generated tools (tool_0000 …)")
	bare  = flag.Bool("bare", false, "serve no tools at all (no tools capability)")
)

func main() {
	fixture.Main("echo", func(s *mcp.Server) {
		if *bare {
			return
		}
		fixture.Tool(s, "echo", "Echo the text back.",
			`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Text string }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				return fixture.Text(a.Text), nil
			})
		fixture.Tool(s, "sleep", "Sleep for ms milliseconds.",
			`{"type":"object","properties":{"ms":{"type":"integer"}}}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Ms int }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				select {
				case <-time.After(time.Duration(a.Ms) * time.Millisecond):
					return fixture.Text("slept"), nil
				case <-ctx.Done():
					log.Print("sleep cancelled")
					return nil, ctx.Err()
				}
			})
		fixture.Tool(s, "fail", "Always fails.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				r := fixture.Text("it failed")
				r.IsError = true
				return r, nil
			})
		fixture.Tool(s, "pid", "The server's process id.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return fixture.Text(fmt.Sprint(os.Getpid())), nil
			})
		for i := range *extra {
			fixture.Tool(s, fmt.Sprintf("tool_%04d", i), fmt.Sprintf("Generated tool %d.", i), `{"type":"object"}`,
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return fixture.Text(req.Params.Name), nil
				})
		}
	})
}
