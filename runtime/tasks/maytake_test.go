package tasks

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// MayTake leaves to the server exactly the calls TakeCall would not take
// without looking further, so that the server builds a Call only for the
// others: a host without the extension calling a tool that does not
// require a task, a host with it calling a tool without task support.
func TestMayTake(t *testing.T) {
	with := mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{ExtensionID: map[string]any{}}}}
	plain := &runtime.ToolInfo{Name: "plain", Kind: decl.KindGo}
	optional := &runtime.ToolInfo{Name: "slow", Kind: decl.KindGo, Meta: mcp.Meta{MetaKey: "optional"}}
	required := &runtime.ToolInfo{Name: "only", Kind: decl.KindGo, Meta: mcp.Meta{MetaKey: "required"}}
	upstream := &runtime.ToolInfo{Name: "up__echo", Kind: decl.KindMCP}
	agent := &runtime.ToolInfo{Name: "agent__reader", Kind: decl.KindAgent}
	e := &extension{}
	for _, c := range []struct {
		meta mcp.Meta
		tool *runtime.ToolInfo
		want bool
	}{
		{nil, nil, false},
		{nil, plain, false},
		{nil, optional, false},
		{nil, agent, false},
		{nil, upstream, false},
		{nil, required, true}, // refused with -32021
		{with, nil, false},
		{with, plain, false},
		{with, optional, true},
		{with, required, true},
		{with, agent, true},
		{with, upstream, true}, // may pass through as the server's task
	} {
		req := callWithMeta(c.meta, nil)
		name := "nil"
		if c.tool != nil {
			name = c.tool.Name
		}
		if got := e.MayTake(req, c.tool); got != c.want {
			t.Errorf("MayTake(declared %v, %s) = %v; want %v", c.meta != nil, name, got, c.want)
		}
		if c.want {
			continue
		}
		// What MayTake leaves, TakeCall leaves too.
		if _, taken, err := e.TakeCall(context.Background(), nil, &serve.Call{Request: req, Tool: c.tool}); taken || err != nil {
			t.Errorf("TakeCall(declared %v, %s) took a call MayTake leaves: %v", c.meta != nil, name, err)
		}
	}
}
