// Command garbage is a fixture MCP server that writes things other than
// JSON-RPC on stdout: a banner before serving (as many real servers do),
// and, on tools/call corrupt, a broken JSON line that no client can parse.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

func main() {
	fmt.Println("Garbage MCP server v1 starting... (this line is not JSON)")
	fmt.Println("")
	fmt.Println("*** listening on stdio ***")
	fixture.Main("garbage", func(s *mcp.Server) {
		fixture.Tool(s, "ok", "Answer ok.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				fmt.Println("debug: ok was called") // a stray log line mid-session
				return fixture.Text("ok"), nil
			})
		fixture.Tool(s, "corrupt", "Write a broken JSON-RPC line.", `{"type":"object"}`,
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				os.Stdout.WriteString("{\"jsonrpc\":\"2.0\",\"id\":\n")
				return fixture.Text("unreachable"), nil
			})
	})
}
