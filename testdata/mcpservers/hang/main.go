// Command hang is the fixture MCP server of the acceptance tests: hang
// blocks until its call is cancelled, after saying on stderr that it has
// started (so a test knows the call is in flight before it kills the
// server); echo and pid answer at once.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

func main() {
	fixture.Main("hang", func(s *mcp.Server) {
		fixture.Tool(s, "hang", "Block until the call is cancelled.",
			`{"type":"object","properties":{"mark":{"type":"string"}}}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Mark string }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				log.Printf("hanging %s", a.Mark)
				<-ctx.Done()
				return nil, ctx.Err()
			})
		fixture.Tool(s, "echo", "Echo the text back.",
			`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Text string }
				if err := fixture.Args(req, &a); err != nil {
					return nil, err
				}
				return fixture.Text(a.Text), nil
			})
		fixture.Tool(s, "pid", "The server's process id.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return fixture.Text(fmt.Sprint(os.Getpid())), nil
			})
	})
}
