package serve

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// ToolResult is the CallToolResult a host gets for r, as for a plain
// tools/call (runtime/tasks answers a collected task with it).
func ToolResult(r runtime.Result) *mcp.CallToolResult { return toCallToolResult(r) }
