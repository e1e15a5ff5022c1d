package runtime

import "maps"

// following is next, the agent's resolution over a pool whose tool lists
// changed, with its tools.use globs as they matched when the agent context
// was built (built): a glob is resolved once per context (seed
// agent-tool-pool, "Glob resolution at build time"), so a tool a server
// adds later that only a glob would take stays out until the next
// context. Servers named in tools.use, bundles and tool names follow the
// servers' lists: the tool a server adds joins, the one it drops leaves.
func following(next, built *resolution) *resolution {
	r := next // shared with every context that resolves the same, unless a glob's new match is cut
	for n := range next.globOnly {
		if built.use[n] {
			continue
		}
		if r == next {
			r = next.cut()
		}
		delete(r.use, n)
		delete(r.allowed, n)
	}
	return r
}

// cut is a copy of r whose use and allowed sets can be cut down: its own
// maps, and no tool_find filter yet (r's was made over r's allowed set).
func (r *resolution) cut() *resolution {
	return &resolution{agent: r.agent, step: r.step, depth: r.depth, maxDepth: r.maxDepth,
		use: maps.Clone(r.use), globOnly: r.globOnly, allowed: maps.Clone(r.allowed), aliases: r.aliases,
		meta: r.meta, optIn: r.optIn, spawn: r.spawn, subagents: r.subagents, warnings: r.warnings, tr: r.tr}
}
