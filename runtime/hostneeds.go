package runtime

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/internal/finder"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// An upstream server may list a tool only to clients that can sample or
// elicit (ToolInfo.Needs). serve leaves such a tool out of the tools/list
// of a host that did not declare what it needs; tool_find, tool_load and
// mcp_list_tools do the same for the host of the call.

// HostCan is what the host of ss declared of what a tool may need: at
// initialize, or (2026-07-28) in the request's _meta, which go-sdk keeps in
// the session's InitializeParams either way.
func HostCan(ss *mcp.ServerSession) HostNeeds {
	if p := ss.InitializeParams(); p != nil {
		return mcpconn.NeedsDeclared(p.Capabilities)
	}
	return 0
}

// declarer is the host of a call that declared its capabilities in the
// request itself (2026-07-28, serve's rounds): that declaration is the
// host's, whatever the session it runs on was opened with (a lean path
// runs such a call on a session shared by every host).
type declarer interface {
	Declared() *mcp.ClientCapabilities
}

// hostCan is HostCan for the host of the call in ctx; ok is false when no
// host made the call (the agent's own loop, the CLI): then nothing is left
// out.
func hostCan(ctx context.Context) (can HostNeeds, ok bool) {
	if d, isDeclarer := mcpconn.CallerFrom(ctx).(declarer); isDeclarer {
		return mcpconn.NeedsDeclared(d.Declared()), true
	}
	ss := hostFrom(ctx)
	if ss == nil {
		return 0, false
	}
	return HostCan(ss), true
}

// hostMayUse says why the host of the call in ctx cannot use pt, or nil.
func hostMayUse(ctx context.Context, pt *PoolTool) error {
	can, ok := hostCan(ctx)
	switch lacks := pt.Needs &^ can; {
	case !ok || lacks == 0:
		return nil
	case lacks&NeedsSampling != 0:
		return errors.New("needs a host that declares sampling, and this one did not")
	default:
		return errors.New("needs a host that declares elicitation, and this one did not")
	}
}

// findFilterFor is findFilter and the overview for a host that can do
// can, less what it cannot use; asked per candidate, not kept (only a host
// that declared less than some tool needs gets here).
func (sf *surface) findFilterFor(snap *poolSnapshot, can HostNeeds) (*search.Allowed, func(int) finder.Overview) {
	keep := func(pt *PoolTool) bool { return pt != nil && sf.loadable[pt.Name] && pt.Needs&^can == 0 }
	allowed := search.AllowFunc(func(name string) bool { return keep(snap.byName[name]) })
	return allowed, func(limit int) finder.Overview {
		var tools []finder.Tool
		for _, t := range snap.tools {
			if keep(t) {
				tools = append(tools, finder.Tool{Name: t.Name, Original: t.Original, Server: t.Server, Category: t.Category})
			}
		}
		return finder.MakeOverview(tools, limit)
	}
}
