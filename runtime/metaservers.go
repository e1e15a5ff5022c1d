package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/tools"
)

// metaServers is the meta tools' view of an agent context: the servers in
// its meta scope (the agent's meta bundles, or the current step's: never
// both).
type metaServers agentState

// metaPermits checks a server tool against the meta scope in force and,
// when the agent wrote tools.allowed, against that list too: a meta bundle
// is not a way around the agent's policy.
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

// Tools returns a server's live tools that the meta scope permits.
func (m *metaServers) Tools(ctx context.Context, server string) ([]tools.ServerTool, error) {
	st := (*agentState)(m)
	if in, _ := st.metaPermits(server, ""); !in {
		return nil, st.scopeError(server)
	}
	up, err := st.upstream(ctx, server)
	if err != nil {
		return nil, err
	}
	var out []tools.ServerTool
	for _, t := range up.Tools() {
		if _, ok := st.metaPermits(server, t.Name); ok {
			out = append(out, tools.ServerTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
	}
	return out, nil
}

// Call calls a server tool inside the meta scope, or a loaded tool by its
// exposed name, through the cache, queue and timeout of that tool.
func (m *metaServers) Call(ctx context.Context, server, tool string, args json.RawMessage) (string, error) {
	st := (*agentState)(m)
	sep := st.s.reg.Sep()
	if server == "" || st.isActive(server+sep+tool) {
		name := tool
		if server != "" {
			name = server + sep + tool
		}
		e := st.surf.Load().byName[name]
		if e == nil || e.info.Kind == decl.KindMeta || decl.IsReservedToolName(e.info.Name) {
			return "", fmt.Errorf("tool %q is not active for agent %q; load it with %s first", name, st.agent.Name, decl.ToolLoad)
		}
		return st.invoke(ctx, e, args)
	}
	in, ok := st.metaPermits(server, tool)
	if !in {
		return "", st.scopeError(server)
	}
	if !ok {
		return "", fmt.Errorf("tool %q of server %q not allowed for agent %q", tool, server, st.agent.Name)
	}
	return st.invoke(ctx, st.metaEntry(server, tool), args)
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
		server: server, original: tool, linked: true}
	e.rich = st.upstreamCall(server, tool)
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
