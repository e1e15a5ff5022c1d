package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
)

// metaPermits checks a server tool against the meta scope in force (the
// agent's meta bundles, or the current step's: never both) and, when the
// agent wrote tools.allowed, against that list too: a meta bundle is not a
// way around the agent's policy.
func (st *agentState) metaPermits(server, tool string) (inScope, ok bool) {
	m := st.surf.Load().meta[server]
	if m == nil {
		return false, false
	}
	srv := st.s.pool.servers[server]
	ok = m.permits(srv, tool)
	if ok && tool != "" && st.agent.Allowed != nil {
		name := decl.ExposedName(server, st.s.reg.Sep(), tool)
		st.mu.Lock()
		ok = st.res.allowedBy(name, nil)
		st.mu.Unlock()
	}
	return true, ok
}

func (st *agentState) scopeError(server string) error {
	servers := sortedKeys(st.surf.Load().meta)
	if len(servers) == 0 {
		return fmt.Errorf("server %q is not reachable through meta tools for agent %q", server, st.agent.Name)
	}
	return fmt.Errorf("server %q is not reachable through meta tools for agent %q; servers: %s", server, st.agent.Name, strings.Join(servers, ", "))
}

// serverTools returns a server's live tools that the meta scope permits.
func (st *agentState) serverTools(ctx context.Context, server string) ([]UpstreamTool, error) {
	if in, _ := st.metaPermits(server, ""); !in {
		return nil, st.scopeError(server)
	}
	up, err := st.upstream(ctx, server)
	if err != nil {
		return nil, err
	}
	var out []UpstreamTool
	for _, t := range up.Tools() {
		if _, ok := st.metaPermits(server, t.Name); ok {
			out = append(out, t)
		}
	}
	return out, nil
}

func mcpListTools(ctx context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Server string `json:"server"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	tools, err := st.serverTools(ctx, a.Server)
	if err != nil {
		return "", err
	}
	if a.Limit <= 0 {
		a.Limit = 50
	}
	a.Offset = min(max(a.Offset, 0), len(tools))
	end := a.Offset + min(a.Limit, len(tools)-a.Offset) // no a.Offset+a.Limit: it overflows for a huge limit
	type listed struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
	}
	page := []listed{}
	for _, t := range tools[a.Offset:end] {
		page = append(page, listed{t.Name, t.Description})
	}
	res := map[string]any{"server": a.Server, "tools": page, "total": len(tools), "offset": a.Offset}
	if end < len(tools) {
		res["next_offset"] = end
	}
	return marshal(res)
}

func mcpGetToolSchema(ctx context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Server string `json:"server"`
		Tool   string `json:"tool"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	tools, err := st.serverTools(ctx, a.Server)
	if err != nil {
		return "", err
	}
	for _, t := range tools {
		if t.Name == a.Tool {
			return marshal(map[string]any{"server": a.Server, "name": t.Name, "description": t.Description, "input_schema": pipeline.NormalizeSchema(t.InputSchema)})
		}
	}
	return "", fmt.Errorf("tool %q not found on server %q (or not allowed); use %s", a.Tool, a.Server, decl.ToolMCPList)
}

// mcpCallTool calls a server tool inside the meta scope, or a loaded tool
// by its exposed name, through the cache, queue and timeout of that tool.
func mcpCallTool(ctx context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Server string          `json:"server"`
		Tool   string          `json:"tool"`
		Args   json.RawMessage `json:"args"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if len(a.Args) == 0 || string(a.Args) == "null" {
		a.Args = emptyArgs
	}
	sep := st.s.reg.Sep()
	if a.Server == "" || st.isActive(a.Server+sep+a.Tool) {
		name := a.Tool
		if a.Server != "" {
			name = a.Server + sep + a.Tool
		}
		e := st.surf.Load().byName[name]
		if e == nil || e.info.Kind == decl.KindMeta || decl.IsReservedToolName(e.info.Name) {
			return "", fmt.Errorf("tool %q is not active for agent %q; load it with %s first", name, st.agent.Name, decl.ToolLoad)
		}
		return st.invoke(ctx, e, a.Args)
	}
	in, ok := st.metaPermits(a.Server, a.Tool)
	if !in {
		return "", st.scopeError(a.Server)
	}
	if !ok {
		return "", fmt.Errorf("tool %q of server %q not allowed for agent %q", a.Tool, a.Server, st.agent.Name)
	}
	return st.invoke(ctx, st.metaEntry(a.Server, a.Tool), a.Args)
}

// isActive reports whether an exposed name is callable now.
func (st *agentState) isActive(name string) bool {
	_, ok := st.surf.Load().byName[name]
	return ok
}

// metaEntry is a transient entry for a server tool reached by meta call,
// with the server's queue, timeout and cache.
func (st *agentState) metaEntry(server, tool string) *entry {
	srv := st.s.pool.servers[server]
	e := &entry{info: ToolInfo{Name: decl.ExposedName(server, st.s.reg.Sep(), tool), Kind: decl.KindMCP, Namespace: server},
		server: server, original: tool, rich: callUpstream, linked: true}
	if pt := st.s.pool.snap.Load().byName[e.info.Name]; pt != nil && pt.Server == server && pt.Original == tool {
		e.args = pt.args // the pool's compiled schema of this server tool
	}
	e.timeout = st.s.reg.Defaults.ToolTimeout
	if srv != nil {
		e.q = st.s.pool.queues[srv.Queue]
		e.cacheTTL = srv.Cache
		if srv.Timeout > 0 {
			e.timeout = srv.Timeout
		}
	}
	return e.finish()
}
