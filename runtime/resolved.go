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
	var late []string
	for n := range next.globOnly {
		if !built.use[n] {
			late = append(late, n)
		}
	}
	if len(late) == 0 {
		return next // shared with every context that resolves the same
	}
	r := *next
	r.use, r.allowed, r.globOnly = maps.Clone(next.use), maps.Clone(next.allowed), maps.Clone(next.globOnly)
	for _, n := range late {
		delete(r.use, n)
		delete(r.allowed, n)
		delete(r.globOnly, n)
	}
	return &r
}
