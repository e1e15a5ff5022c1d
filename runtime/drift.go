package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A server's on_drift decides what agents see of a tool that differs from
// the lock file (the "rug pull": a server changes a tool's description or
// schema after it was reviewed). warn serves the live tool; pin serves the
// locked one and checks arguments against its locked schema; refuse hides
// it. Under pin and refuse a tool the lock lacks is held back as well:
// nothing reviewed stands behind it. A server never locked has no drift.

// lockedByServer indexes the registry's locked tools: server → the
// server's own tool name → its locked entry. Built once per pool.
func lockedByServer(reg *Registry) map[string]map[string]*decl.Tool {
	out := map[string]map[string]*decl.Tool{}
	for i := range reg.Tools {
		t := &reg.Tools[i]
		if t.Kind != decl.KindMCP {
			continue
		}
		if out[t.Server] == nil {
			out[t.Server] = map[string]*decl.Tool{}
		}
		out[t.Server][t.Original] = t
	}
	return out
}

// toolDrifted reports whether a live tool differs from its locked entry in
// what a model reads: the description, the input schema, and the title
// when the lock recorded one (lock files before issue 11 have none).
func toolDrifted(t *decl.Tool, lt UpstreamTool) bool {
	return t.Description != lt.Description || !jsonEqual(t.InputSchema, lt.InputSchema) ||
		(t.Title != "" && t.Title != lt.Title)
}

// served applies a server's on_drift to its live tools/list: the list the
// pool and the meta tools offer, and the names held back (sorted as live is).
func (p *Pool) served(server string, live []UpstreamTool) (out []UpstreamTool, held []string) {
	locked := p.locked[server]
	srv := p.servers[server]
	mode := srv.DriftMode()
	if len(locked) == 0 || mode == decl.DriftWarn {
		return live, nil
	}
	out = make([]UpstreamTool, 0, len(live))
	for _, lt := range live {
		t := locked[lt.Name]
		switch {
		case t != nil && !toolDrifted(t, lt):
			out = append(out, lt)
		case t != nil && mode == decl.DriftPin:
			out = append(out, lockedUpstreamTool(t))
		case serverExposes(srv, lt.Name):
			held = append(held, lt.Name)
		}
	}
	return out, held
}

// withheld says why a call to a server tool is refused under the server's
// on_drift, or "" when it may go ahead. It guards the paths that reach a
// server tool by name (mcp_call_tool) besides the pool's own list.
func (p *Pool) withheld(server, tool string, live []UpstreamTool) string {
	locked := p.locked[server]
	mode := p.servers[server].DriftMode()
	if len(locked) == 0 || mode == decl.DriftWarn {
		return ""
	}
	t := locked[tool]
	if t == nil {
		return fmt.Sprintf("tool %q of server %q is not in the lock file (on_drift = %q); run toolgen lock to review and admit it", tool, server, mode)
	}
	if mode != decl.DriftRefuse {
		return ""
	}
	for _, lt := range live {
		if lt.Name == tool && toolDrifted(t, lt) {
			return fmt.Sprintf("tool %q of server %q changed since toolgen lock (on_drift = \"refuse\"); run toolgen lock to review the change", tool, server)
		}
	}
	return ""
}

// lockedUpstreamTool is a locked tool in the form a server lists it: what
// pin serves in place of the changed live tool.
func lockedUpstreamTool(t *decl.Tool) UpstreamTool {
	ut := UpstreamTool{
		Name: t.Original, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema,
		OutputSchema: t.OutputSchema, Annotations: mcpAnnotations(t.Annotations),
	}
	if len(t.Meta) > 0 {
		_ = json.Unmarshal(t.Meta, &ut.Meta) // what the lock recorded; unreadable stays empty
	}
	return ut
}
