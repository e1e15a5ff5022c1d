package tasks

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

var _ serve.CallFilter = (*extension)(nil)

// MayTake tells the server, before it builds a serve.Call, which calls
// TakeCall leaves alone: a host that did not declare the extension gets a
// task (or its refusal) only from a tool that requires one; one that did,
// from a tool that supports tasks or an upstream server's tool (which may
// pass through as the server's task). It must stay true wherever TakeCall
// might take the call.
func (e *extension) MayTake(req *mcp.CallToolRequest, tool *runtime.ToolInfo) bool {
	if tool == nil {
		return false
	}
	support := Support(tool)
	if !declared(req) {
		return support == "required"
	}
	return support != "" || tool.Kind == decl.KindMCP
}
