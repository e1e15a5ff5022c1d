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
	for _, al := range st.agent.Aliases {
		if e := sf.byName[al.Target]; e != nil {
			if _, taken := sf.byName[al.Name]; !taken {
				sf.byName[al.Name] = e
			}
		}
	}
	sf.list = st.underAliases(sf.list)
	slices.SortFunc(sf.list, func(a, b ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	old := st.surf.Load()
	st.surf.Store(sf)
	return old == nil || !slices.EqualFunc(old.list, sf.list, func(a, b ToolInfo) bool {
		return a.Name == b.Name && a.Description == b.Description && string(a.InputSchema) == string(b.InputSchema)
	})
}

// underAliases lists a tool with an alias under the name the agent chose
// (aliasFor), so hosts that check a call's name against tools/list accept
// it; its own name and its other aliases still answer calls.
func (st *agentState) underAliases(list []ToolInfo) []ToolInfo {
	if len(st.agent.Aliases) == 0 {
		return list
	}
	listed := make(map[string]bool, len(list))
	for _, info := range list {
		listed[info.Name] = true
	}
	taken := func(n string) bool { return listed[n] }
	for i := range list {
		if al := aliasFor(st.agent.Aliases, list[i].Name, taken); al != "" {
			list[i].Name = al
		}
	}
	return list
}

// aliasFor is the one name a tool with aliases is shown under: its first
// alias in the agent's list (sorted by name) that names no other tool;
// "" when it has none. One tool, one name: a chain e2 → e → tool gives the
// tool two aliases, and a model shown both would see the tool twice.
func aliasFor(aliases []decl.Alias, target string, taken func(string) bool) string {
	for _, al := range aliases {
		if al.Target == target && !taken(al.Name) {
			return al.Name
		}
	}
	return ""
}

// exposedName is the name the agent is shown for a tool: its alias
// (aliasFor), else its own. tool_find, tool_describe, tool_load and
// tool_active say what tools/list says.
func (st *agentState) exposedName(name string) string {
	if len(st.agent.Aliases) == 0 {
		return name
	}
	sf := st.surf.Load()
	taken := func(n string) bool { e := sf.byName[n]; return e != nil && e.info.Name == n }
	if al := aliasFor(st.agent.Aliases, name, taken); al != "" {
		return al
	}
	return name
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
	out = st.underAliases(out)
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
