package runtime

import (
	"slices"
	"sort"
	"sync/atomic"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// surface is an immutable view of what the agent can call, swapped whole
// on every change so that Call reads it without locks.
type surface struct {
	// shared is the agent's pool tools as every session of it has them
	// (catalog.go); nil inside a step, with discovery, or while one of the
	// context's servers is down: then own holds the pool tools too.
	shared  *toolTable
	own     map[string]*entry // this context's callable names, aliases included
	ownList []ToolInfo        // own's visible tools, sorted by name
	aliases []decl.Alias      // the agent's: tools() lists a tool under its alias

	// What the agent's policy lets it reach now: outside a step its own
	// resolution, inside a step only the step's bundles.
	loadable map[string]bool // pool tools it may call or load
	meta     metaScopes      // servers the meta tools reach
	// res is the resolution loadable belongs to outside a step, which
	// every session of the agent shares: so does tool_find's filter (tools.go).
	res *resolution

	overviewMemo atomic.Pointer[overviewMemo] // tool_find's fallback, made on first use (tools.go)
}

// entry returns the callable tool of a name (or alias), nil if none.
func (sf *surface) entry(name string) *entry {
	if e := sf.own[name]; e != nil {
		return e
	}
	if sf.shared != nil {
		return sf.shared.byName[name]
	}
	return nil
}

// size is the number of visible tools.
func (sf *surface) size() int {
	n := len(sf.ownList)
	if sf.shared != nil {
		n += len(sf.shared.list)
	}
	return n
}

// tools lists the visible tools sorted by name, in a new slice.
func (sf *surface) tools() []ToolInfo {
	var list []ToolInfo
	if sf.shared == nil {
		list = slices.Clone(sf.ownList)
	} else {
		list = mergeSorted(sf.shared.list, sf.ownList)
	}
	if len(sf.aliases) == 0 {
		return list
	}
	list = underAliases(sf.aliases, list)
	sortByName(list)
	return list
}

// names calls fn with every callable name.
func (sf *surface) names(fn func(string)) {
	for n := range sf.own {
		fn(n)
	}
	if sf.shared != nil {
		for n := range sf.shared.byName {
			fn(n)
		}
	}
}

// sameList reports whether next lists the same tools as sf.
func (sf *surface) sameList(next *surface) bool {
	eq := func(a, b ToolInfo) bool {
		return a.Name == b.Name && a.Description == b.Description && string(a.InputSchema) == string(b.InputSchema)
	}
	if sf.shared == next.shared {
		return slices.EqualFunc(sf.ownList, next.ownList, eq)
	}
	return slices.EqualFunc(sf.tools(), next.tools(), eq)
}

// mergeSorted merges two lists sorted by name into a new one.
func mergeSorted(a, b []ToolInfo) []ToolInfo {
	out := make([]ToolInfo, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Name <= b[0].Name {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// active reports whether a pool tool is activated for the agent.
func (st *agentState) activeLocked(name string) bool {
	if st.agent.Discovery {
		return st.loaded[name]
	}
	return st.res().allowed[name]
}

// rebuildSurfaceLocked recomputes the surface; it reports whether the
// visible list changed. st.mu is held.
//
// While a workflow step is active the surface is the step's bundles (cut
// to tools.allowed when the agent wrote it) plus the runtime tools the
// agent declares; its own tools.use and meta bundles are not in force.
func (st *agentState) rebuildSurfaceLocked() bool {
	p := st.s.pool
	snap := p.snap.Load()
	res := st.res()
	sf := &surface{own: map[string]*entry{}, loadable: res.allowed, meta: res.meta, aliases: st.agent.Aliases, res: res}
	if st.step != nil {
		sf.loadable, sf.meta, sf.res = st.step.direct, st.step.meta, nil
	}
	add := func(e *entry, visible bool) {
		if sf.entry(e.info.Name) != nil {
			return
		}
		sf.own[e.info.Name] = e
		if visible {
			sf.ownList = append(sf.ownList, e.info)
		}
	}
	if st.step == nil && !st.agent.Discovery && st.serversUp() {
		sf.shared = p.table(snap, res, st.s.opts.Workdir) // every allowed tool is active
	} else {
		var names []string
		if st.step != nil {
			names = sortedKeys(st.step.direct)
		} else {
			for n := range res.allowed {
				if st.activeLocked(n) {
					names = append(names, n)
				}
			}
			slices.Sort(names)
		}
		for _, n := range names {
			if pt := snap.byName[n]; pt != nil { // else gone from its server's list
				add(p.entry(pt, st.s.opts.Workdir), st.serverUp(pt.Server))
			}
		}
	}
	st.addRuntimeTools(sf.meta, add)
	for _, al := range st.agent.Aliases {
		if e := sf.entry(al.Target); e != nil && sf.entry(al.Name) == nil {
			sf.own[al.Name] = e
		}
	}
	sortByName(sf.ownList)
	old := st.surf.Load()
	st.surf.Store(sf)
	return old == nil || !old.sameList(sf)
}

// serversUp reports whether every server the context uses can offer its
// tools (serverUp); st.mu is held.
func (st *agentState) serversUp() bool {
	for name := range st.ups {
		if !st.serverUp(name) {
			return false
		}
	}
	return true
}

// underAliases lists a tool with an alias under the name the agent chose
// (aliasFor), so hosts that check a call's name against tools/list accept
// it; its own name and its other aliases still answer calls.
func underAliases(aliases []decl.Alias, list []ToolInfo) []ToolInfo {
	if len(aliases) == 0 {
		return list
	}
	listed := make(map[string]bool, len(list))
	for _, info := range list {
		listed[info.Name] = true
	}
	taken := func(n string) bool { return listed[n] }
	for i := range list {
		if al := aliasFor(aliases, list[i].Name, taken); al != "" {
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
	taken := func(n string) bool { e := sf.entry(n); return e != nil && e.info.Name == n }
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
		if e := sf.entry(n); e != nil && st.serverUp(e.server) {
			out = append(out, e.info)
		}
	}
	if len(st.step.meta) > 0 {
		for _, n := range []string{decl.ToolMCPCall, decl.ToolMCPSchema, decl.ToolMCPList} {
			if e := sf.entry(n); e != nil {
				out = append(out, e.info)
			}
		}
	}
	out = underAliases(st.agent.Aliases, out)
	sortByName(out)
	return out
}

// sortByName sorts tools by name. sort.Slice rather than slices.SortFunc:
// a generic sort of a struct this size is ~20 KB of code in every agent
// binary, and these lists are short (own tools, a step's) or sorted once
// per surface change, never per call.
func sortByName(list []ToolInfo) {
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
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
