package runtime

import (
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// surface is an immutable view of what the agent can call, swapped whole
// on every change so that Call reads it without locks.
type surface struct {
	byName map[string]*entry // callable names, aliases included
	list   []ToolInfo        // visible tools, sorted by name

	// What the agent's policy lets it reach now: outside a step its own
	// resolution, inside a step only the step's bundles.
	loadable map[string]bool // pool tools it may call or load
	meta     metaScopes      // servers the meta tools reach
}

// active reports whether a pool tool is activated for the agent.
func (st *agentState) activeLocked(name string) bool {
	if st.agent.Discovery {
		return st.loaded[name]
	}
	return st.res.allowed[name]
}

// rebuildSurfaceLocked recomputes the surface; it reports whether the
// visible list changed. st.mu is held.
//
// While a workflow step is active the surface is the step's bundles (cut
// to tools.allowed when the agent wrote it) plus the runtime tools the
// agent declares; its own tools.use and meta bundles are not in force.
func (st *agentState) rebuildSurfaceLocked() bool {
	snap := st.s.pool.snap.Load()
	sf := &surface{byName: map[string]*entry{}, loadable: st.res.allowed, meta: st.res.meta}
	if st.step != nil {
		sf.loadable, sf.meta = st.step.direct, st.step.meta
	}
	add := func(e *entry, visible bool) {
		if _, dup := sf.byName[e.info.Name]; dup {
			return
		}
		sf.byName[e.info.Name] = e
		if visible {
			sf.list = append(sf.list, e.info)
		}
	}
	names := map[string]bool{}
	if st.step != nil {
		for n := range st.step.direct {
			names[n] = true
		}
	} else {
		for n := range st.res.allowed {
			if st.activeLocked(n) {
				names[n] = true
			}
		}
	}
	entries := make(map[*PoolTool]*entry, len(names))
	for _, n := range sortedKeys(names) {
		pt := snap.byName[n]
		if pt == nil {
			continue // gone from its server's list
		}
		e := st.entries[pt]
		if e == nil {
			e = st.poolEntry(pt)
		}
		entries[pt] = e
		add(e, st.serverUp(pt.Server))
	}
	st.entries = entries
	st.addRuntimeTools(sf.meta, add)
	// A tool with an alias is listed under the name the agent chose (each
	// alias, if several), so hosts that check names against tools/list
	// accept it; its own name still answers calls.
	listed := make(map[string]int, len(sf.list))
	for i, info := range sf.list {
		listed[info.Name] = i
	}
	aliased := map[string]bool{}
	for _, al := range st.agent.Aliases {
		if e := sf.byName[al.Target]; e != nil {
			if _, taken := sf.byName[al.Name]; !taken {
				sf.byName[al.Name] = e
				if i, visible := listed[al.Target]; visible {
					info := sf.list[i]
					info.Name = al.Name
					sf.list = append(sf.list, info)
					aliased[al.Target] = true
				}
			}
		}
	}
	if len(aliased) > 0 {
		sf.list = slices.DeleteFunc(sf.list, func(info ToolInfo) bool { return aliased[info.Name] })
	}
	slices.SortFunc(sf.list, func(a, b ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	old := st.surf.Load()
	st.surf.Store(sf)
	return old == nil || !slices.EqualFunc(old.list, sf.list, func(a, b ToolInfo) bool {
		return a.Name == b.Name && a.Description == b.Description && string(a.InputSchema) == string(b.InputSchema)
	})
}

// stepTools lists the current step's tools; st.mu is held.
func (st *agentState) stepTools() []ToolInfo {
	sf := st.surf.Load()
	var out []ToolInfo
	for _, n := range sortedKeys(st.step.direct) {
		if e := sf.byName[n]; e != nil && st.serverUp(e.server) {
			out = append(out, e.info)
		}
	}
	if len(st.step.meta) > 0 {
		for _, n := range []string{decl.ToolMCPCall, decl.ToolMCPSchema, decl.ToolMCPList} {
			if e := sf.byName[n]; e != nil {
				out = append(out, e.info)
			}
		}
	}
	slices.SortFunc(out, func(a, b ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// serverUp reports whether a server's tools can be offered: not a server
// tool, or its server connected (or was never needed: locked tools of
// servers not connected stay listed so that hosts see them, and a call
// connects lazily).
func (st *agentState) serverUp(server string) bool {
	if server == "" {
		return true
	}
	c := st.ups[server]
	if c == nil {
		return true
	}
	select {
	case <-c.ready:
		return c.err == nil && !c.down
	default:
		return true
	}
}
