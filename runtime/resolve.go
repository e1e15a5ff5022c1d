package runtime

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

const defaultMaxDepth = 2

// switchGrace is how long Switch waits for in-flight calls.
var switchGrace = 5 * time.Second

// resolution is an agent's tool surface computed from a pool snapshot. The
// same code serves Open, ToolsForStep and Explain.
type resolution struct {
	agent     *decl.Agent
	step      string // "WF/ROLE/STEP" when resolving a step's bundles for the agent
	depth     int
	maxDepth  int
	use       map[string]bool // pool tools put in use
	globOnly  map[string]bool // of use, those only a tools.use glob put there (resolved.go)
	allowed   map[string]bool // use ∩ tools.allowed: callable (or loadable with discovery)
	aliases   map[string]string
	meta      metaScopes
	optIn     map[string]bool // runtime tools tools.use names (decl.OptInTools)
	spawn     bool            // spawn_agents and list_available_agents kept
	subagents []string        // sub-agents whose agent__<name> tool is kept
	warnings  []warning
	tr        *trace // nil unless explaining

	find atomic.Pointer[findMemo] // tool_find's filter over allowed (tools.go)
}

type warning struct {
	event string
	msg   string
	attrs []slog.Attr
	once  string // non-empty: logged once per pool under this key
}

// trace records why each tool is in or out, for explain.
type trace struct {
	reasons  map[string][]string
	excluded map[string]bool
	runtime  map[string]bool // runtime tools it speaks of (spawn_agents, agent__<name>)
}

func newTrace() *trace {
	return &trace{reasons: map[string][]string{}, excluded: map[string]bool{}, runtime: map[string]bool{}}
}

// noteRuntime and excludeRuntime speak of one of the runtime's own tools.
func (t *trace) noteRuntime(name, format string, args ...any) {
	if t != nil {
		t.runtime[name] = true
		t.note(name, format, args...)
	}
}

func (t *trace) excludeRuntime(name, format string, args ...any) {
	if t != nil {
		t.runtime[name] = true
		t.exclude(name, format, args...)
	}
}

func (t *trace) note(name, format string, args ...any) {
	if t == nil {
		return
	}
	t.reasons[name] = append(t.reasons[name], fmt.Sprintf(format, args...))
}

func (t *trace) exclude(name, format string, args ...any) {
	if t == nil {
		return
	}
	t.note(name, format, args...)
	t.excluded[name] = true
}

// excludeServer excludes every pool tool of a server, for the same reason.
func (t *trace) excludeServer(snap *poolSnapshot, server, format string, args ...any) {
	if t == nil {
		return
	}
	for _, pt := range snap.tools {
		if pt.Server == server {
			t.exclude(pt.Name, format, args...)
		}
	}
}

// metaScopes are the servers meta tools may reach, each with the merged
// policy of the bundles that selected it.
type metaScopes map[string]*metaScope

type metaScope struct {
	bundles []string
	filter  decl.Filter // the bundles' lists: allow ∩, deny ∪
}

func (m *metaScope) permits(srv *decl.Server, tool string) bool {
	return serverExposes(srv, tool) && filterPermits(srv, m.filter, tool)
}

func (m *metaScope) merge(b *decl.Bundle) {
	m.bundles = append(m.bundles, b.Name)
	m.filter.Add(b.AllowTools, b.DenyTools)
}

func (r *resolution) warn(event, msg string, attrs ...slog.Attr) {
	r.warnings = append(r.warnings, warning{event: event, msg: msg, attrs: attrs})
}

// warnUntrustedGlobs reports the glob entries of an untrusted server's
// allow lists, which match nothing at run time: untrusted servers take
// exact tool names. Each is logged once per pool.
func (r *resolution) warnUntrustedGlobs(srv *decl.Server, b *decl.Bundle) {
	if srv == nil || srv.Trusted {
		return
	}
	lists := []struct {
		where string
		allow []string
	}{{"server." + srv.Name + " allow_tools", srv.AllowTools}, {"bundle." + b.Name + " allow_tools", b.AllowTools}}
	for _, l := range lists {
		for _, p := range l.allow {
			if !decl.IsGlob(p) {
				continue
			}
			r.warnings = append(r.warnings, warning{
				event: EventUntrustedGlob, msg: "untrusted servers take exact tool names: this glob matches nothing",
				attrs: []slog.Attr{slog.String("server", srv.Name), slog.String("pattern", p), slog.String("list", l.where)},
				once:  l.where + "\x00" + p,
			})
			r.tr.note(decl.ToolMCPCall, "%s %q: a glob, which matches nothing for untrusted server %s", l.where, p, srv.Name)
		}
	}
}

func (p *Pool) agentMaxDepth(a *decl.Agent) int {
	switch {
	case a.MaxDepth > 0:
		return a.MaxDepth
	case p.reg.Defaults.MaxDepth > 0:
		return p.reg.Defaults.MaxDepth
	}
	return defaultMaxDepth
}

// resolveAgent computes what an agent can call at a spawn depth. limit is
// the max_depth in force above a sub-agent (0 at the top): a sub-agent
// never goes deeper than the smallest max_depth on its way down.
func (p *Pool) resolveAgent(snap *poolSnapshot, a *decl.Agent, depth, limit int, tr *trace) *resolution {
	r := &resolution{
		agent: a, depth: depth, maxDepth: p.agentMaxDepth(a),
		use: map[string]bool{}, globOnly: map[string]bool{}, allowed: map[string]bool{}, aliases: map[string]string{},
		optIn: map[string]bool{}, meta: metaScopes{}, tr: tr,
	}
	if limit > 0 && limit < r.maxDepth {
		r.maxDepth = limit
	}
	for _, al := range a.Aliases {
		r.aliases[al.Name] = al.Target
	}
	spawnOptIn := a.Spawn
	direct := map[string][]selected{} // server → direct bundles selected in use
	var directOrder []string
	for i, u := range a.Use {
		where := fmt.Sprintf("tools.use[%d]", i)
		switch u.Kind {
		case decl.UseTool:
			if u.Name == decl.ToolSpawnAgents || u.Name == decl.ToolListAgents {
				spawnOptIn = true
				tr.noteRuntime(decl.ToolSpawnAgents, "%s names %s: opts in to coordination tools", where, u.Name)
				continue
			}
			r.useTool(snap, u.Name, where+" tool."+u.Name)
		case decl.UseServer:
			srv := p.servers[u.Name]
			if srv == nil {
				r.warn(EventToolUnknown, "unknown server in tools.use; skipped", slog.String("agent", a.Name), slog.String("server", u.Name))
				continue
			}
			if !srv.Trusted {
				r.warn(EventToolBlocked, "untrusted server cannot be exposed directly; use a meta bundle", slog.String("agent", a.Name), slog.String("server", u.Name))
				tr.excludeServer(snap, u.Name, "%s server.%s: untrusted server, meta only", where, u.Name)
				continue
			}
			for _, t := range snap.tools {
				if t.Server == u.Name {
					r.add(t, "%s server.%s", where, u.Name)
				}
			}
		case decl.UseBundle:
			b := p.bundles[u.Name]
			if b == nil {
				r.warn(EventToolUnknown, "unknown bundle in tools.use; skipped", slog.String("agent", a.Name), slog.String("bundle", u.Name))
				continue
			}
			p.selectBundle(snap, r, b, where, direct, &directOrder)
		case decl.UseRuntime:
			if slices.Contains(decl.OptInTools, u.Name) {
				r.optIn[u.Name] = true
				tr.noteRuntime(u.Name, "%s runtime.%s", where, u.Name)
			} else {
				r.warn(EventToolUnknown, "unknown runtime tool in tools.use; skipped", slog.String("agent", a.Name), slog.String("tool", u.Name))
			}
		case decl.UseGlob:
			n, untrusted := 0, 0
			for _, t := range snap.tools {
				if !decl.Match(u.Name, t.Name) {
					continue
				}
				if t.Untrusted {
					tr.exclude(t.Name, "%s glob %q: untrusted server, meta only", where, u.Name)
					untrusted++
					continue
				}
				had := r.use[t.Name]
				r.add(t, "%s glob %q", where, u.Name)
				if !had {
					r.globOnly[t.Name] = true
				}
				n++
			}
			if n == 0 {
				tr.note("", "%s glob %q matches no tool in the pool", where, u.Name)
				msg := "matches no tool in the pool; skipped"
				if untrusted > 0 {
					msg = "matches only tools of untrusted servers, which are meta only; skipped"
				}
				// once per pool: every session of the agent would say the same
				r.warnings = append(r.warnings, warning{event: EventToolUnmatched, msg: msg,
					attrs: []slog.Attr{slog.String("agent", a.Name), slog.String("pattern", u.Name), slog.String("entry", where)},
					once:  EventToolUnmatched + "\x00" + a.Name + "\x00" + u.Name})
			}
		}
	}
	p.mergeDirect(snap, r, direct, directOrder)
	r.applyAllowed(snap)
	r.restrictSpawn(spawnOptIn)
	r.restrictSubagents()
	return r
}

func (r *resolution) useTool(snap *poolSnapshot, name, why string) {
	t := snap.byName[name]
	if t == nil {
		if target, ok := r.aliases[name]; ok {
			t = snap.byName[target]
		}
	}
	if t == nil {
		attrs := []slog.Attr{slog.String("agent", r.agent.Name), slog.String("tool", name)}
		if to, ok := snap.renamed[name]; ok {
			attrs = append(attrs, slog.String("renamed_to", to))
		}
		r.warn(EventToolUnknown, "tool not found in pool; skipped", attrs...)
		r.tr.exclude(name, "%s: not found in the pool; skipped", why)
		return
	}
	if t.Untrusted {
		r.tr.exclude(t.Name, "%s: untrusted server, meta only", why)
		return
	}
	r.add(t, "%s", why)
}

func (r *resolution) add(t *PoolTool, format string, args ...any) {
	r.use[t.Name] = true
	delete(r.globOnly, t.Name)
	r.tr.note(t.Name, format, args...)
}

// selectBundle applies one selected bundle: meta bundles widen the meta
// scope, direct server bundles are merged per server later.
// selected is a direct bundle and where it was selected.
type selected struct {
	b     *decl.Bundle
	where string
}

func (p *Pool) selectBundle(snap *poolSnapshot, r *resolution, b *decl.Bundle, where string, direct map[string][]selected, order *[]string) {
	srv := p.servers[b.Server]
	switch {
	case b.Mode == "meta":
		if srv == nil {
			r.warn(EventToolUnknown, "meta bundle names an unknown server; skipped", slog.String("bundle", b.Name), slog.String("server", b.Server))
			return
		}
		if !srv.Trusted && len(b.AllowTools) == 0 && len(srv.AllowTools) == 0 {
			r.warn(EventToolBlocked, "untrusted server needs allow_tools; bundle skipped", slog.String("bundle", b.Name), slog.String("server", b.Server))
			return
		}
		r.warnUntrustedGlobs(srv, b)
		m := r.meta[b.Server]
		if m == nil {
			m = &metaScope{}
			r.meta[b.Server] = m
		}
		m.merge(b)
		r.tr.note(decl.ToolMCPCall, "%s bundle.%s: meta tools reach server %s", where, b.Name, b.Server)
	case b.Server != "":
		if srv == nil {
			r.warn(EventToolUnknown, "bundle names an unknown server; skipped", slog.String("bundle", b.Name), slog.String("server", b.Server))
			return
		}
		if !srv.Trusted {
			r.warn(EventToolBlocked, "direct bundle of an untrusted server rejected; untrusted servers are meta only", slog.String("bundle", b.Name), slog.String("server", b.Server))
			r.tr.excludeServer(snap, b.Server, "%s bundle.%s: untrusted server %s, meta only", where, b.Name, b.Server)
			return
		}
		if _, ok := direct[b.Server]; !ok {
			*order = append(*order, b.Server)
		}
		direct[b.Server] = append(direct[b.Server], selected{b, where})
	default:
		for _, name := range b.Tools {
			r.useTool(snap, name, fmt.Sprintf("%s bundle.%s", where, b.Name))
		}
	}
}

// mergeDirect exposes the tools of direct server bundles: across every
// bundle selected for one server, direct and meta alike, allow lists
// intersect and deny lists union, so a meta bundle narrows the direct
// tools of its server and the direct bundles narrow its meta scope.
func (p *Pool) mergeDirect(snap *poolSnapshot, r *resolution, direct map[string][]selected, order []string) {
	for _, server := range order {
		var m metaScope
		var wheres []string
		for _, sel := range direct[server] {
			m.merge(sel.b)
			wheres = append(wheres, sel.where+" bundle."+sel.b.Name)
		}
		if ms := r.meta[server]; ms != nil {
			m.filter.Merge(ms.filter)
			wheres = append(wheres, "meta bundle."+strings.Join(ms.bundles, " + bundle."))
			for _, sel := range direct[server] {
				ms.merge(sel.b)
			}
		}
		srv := p.servers[server]
		why := strings.Join(wheres, " + ")
		for _, t := range snap.tools {
			if t.Server != server {
				continue
			}
			if m.permits(srv, t.Original) {
				r.add(t, "%s (direct, server %s)", why, server)
			} else {
				r.tr.exclude(t.Name, "%s: filtered by the bundles' allow/deny lists", why)
			}
		}
	}
}

// applyAllowed intersects the use set with tools.allowed. The generated
// Agent.Allow switch answers names known at generate time; globs are
// matched here too, for server tools discovered at run time.
func (r *resolution) applyAllowed(snap *poolSnapshot) {
	a := r.agent
	names := make([]string, 0, len(r.use))
	for n := range r.use {
		names = append(names, n)
	}
	slices.Sort(names)
	if a.Allowed == nil {
		for _, n := range names {
			r.allowed[n] = true
			if r.step == "" {
				r.tr.note(n, "tools.allowed omitted: everything in use is allowed")
			}
		}
		return
	}
	reverse := map[string][]string{} // target → aliases
	for al, target := range r.aliases {
		reverse[target] = append(reverse[target], al)
	}
	for _, n := range names {
		if r.allowedBy(n, reverse[n]) {
			r.allowed[n] = true
			r.tr.note(n, "%s", r.allowReason(n, reverse[n]))
		} else if r.step != "" {
			r.tr.exclude(n, "selected by the step, but not matched by tools.allowed")
		} else {
			r.tr.exclude(n, "in use but not matched by tools.allowed")
		}
	}
	if r.step != "" {
		return // the entries themselves were checked when the agent was resolved
	}
	for i, p := range a.Allowed {
		if decl.IsGlob(p) {
			continue
		}
		if _, alias := r.aliases[p]; alias || decl.IsReservedToolName(p) {
			continue // runtime tools are not in the pool; offersRuntime checks them
		}
		if usesFeature(a, p) {
			continue // tools.allowed admits prompts and resources too
		}
		if snap.byName[p] == nil {
			r.warn(EventToolUnknown, "tools.allowed names a tool not in the pool; ignored", slog.String("agent", a.Name), slog.String("tool", p))
			r.tr.note("", "tools.allowed[%d] %q: not in the pool", i, p)
		} else if !r.use[p] {
			r.tr.exclude(p, "tools.allowed[%d] names it, but it is not in tools.use", i)
		}
	}
}

// usesFeature reports whether p names a prompt or resource the agent uses,
// or is a resource URI (no tool name holds "://").
func usesFeature(a *decl.Agent, p string) bool {
	if strings.Contains(p, "://") {
		return true
	}
	return slices.ContainsFunc(a.Use, func(u decl.Use) bool {
		return (u.Kind == decl.UsePrompt || u.Kind == decl.UseResource) && u.Name == p
	})
}

// offersRuntime reports whether the agent offers one of the runtime's own
// tools it declares: tools.allowed is its whole list, so when written it
// must let the runtime tool in too.
func (r *resolution) offersRuntime(name string) bool {
	if r.agent.Allowed == nil {
		return true
	}
	var aliasesOf []string
	for al, target := range r.aliases {
		if target == name {
			aliasesOf = append(aliasesOf, al)
		}
	}
	if r.allowedBy(name, aliasesOf) {
		return true
	}
	r.tr.excludeRuntime(name, "declared, but not matched by tools.allowed (allowed is the agent's whole list)")
	return false
}

// allowedBy reports whether tools.allowed lets a tool in, directly or
// through one of its aliases.
func (r *resolution) allowedBy(name string, aliasesOf []string) bool {
	a := r.agent
	if a.Allow != nil {
		if a.Allow(name) {
			return true
		}
		for _, al := range aliasesOf {
			if a.Allow(al) {
				return true
			}
		}
		for _, p := range a.Allowed {
			if decl.IsGlob(p) && decl.Match(p, name) {
				return true
			}
		}
		return false
	}
	return r.allowReason(name, aliasesOf) != ""
}

// allowReason names the tools.allowed entry that lets a tool in.
func (r *resolution) allowReason(name string, aliasesOf []string) string {
	for i, p := range r.agent.Allowed {
		switch {
		case decl.IsGlob(p):
			if decl.Match(p, name) {
				return fmt.Sprintf("tools.allowed[%d] glob %q", i, p)
			}
		case p == name:
			return fmt.Sprintf("tools.allowed[%d] %q", i, p)
		case r.aliases[p] == name:
			return fmt.Sprintf("tools.allowed[%d] alias %q -> %s", i, p, name)
		case slices.Contains(aliasesOf, p):
			return fmt.Sprintf("tools.allowed[%d] alias %q", i, p)
		}
	}
	if r.agent.Allow != nil {
		return "tools.allowed (generated switch)"
	}
	return ""
}

// restrictSpawn applies the sub-agent restrictions: coordination tools need
// an opt-in, and are removed at depth >= max_depth whatever the agent says.
func (r *resolution) restrictSpawn(optIn bool) {
	a := r.agent
	both := func(mark func(string, string, ...any), format string, args ...any) {
		mark(decl.ToolSpawnAgents, format, args...)
		mark(decl.ToolListAgents, format, args...)
	}
	switch {
	case !optIn && r.depth > 0:
		both(r.tr.excludeRuntime, "removed: sub-agent at depth %d without opt-in (spawn = true)", r.depth)
	case !optIn:
		both(r.tr.excludeRuntime, "not enabled: agent has spawn = false")
	case r.depth >= r.maxDepth:
		r.warn(EventSubagentMaxDepth, "max depth reached: spawn_agents and list_available_agents removed",
			slog.String("agent", a.Name), slog.Int("depth", r.depth), slog.Int("max_depth", r.maxDepth))
		both(r.tr.excludeRuntime, "removed: depth %d reached max_depth %d", r.depth, r.maxDepth)
	default:
		r.spawn = true
		both(r.tr.noteRuntime, "spawn = true and depth %d < max_depth %d", r.depth, r.maxDepth)
	}
}

// restrictSubagents bounds the other way down: agent__<name> opens a
// session one level deeper, so at depth >= max_depth it is removed, with
// the same warning event as spawn_agents.
func (r *resolution) restrictSubagents() {
	a := r.agent
	if len(a.Subagents) == 0 {
		return
	}
	if r.depth >= r.maxDepth {
		tools := make([]string, len(a.Subagents))
		for i, sub := range a.Subagents {
			tools[i] = decl.SubagentPrefix + sub
			r.tr.excludeRuntime(tools[i], "removed: depth %d reached max_depth %d", r.depth, r.maxDepth)
		}
		r.warn(EventSubagentMaxDepth, "max depth reached: sub-agent tools removed",
			slog.String("agent", a.Name), slog.Int("depth", r.depth), slog.Int("max_depth", r.maxDepth), slog.Any("tools", tools))
		return
	}
	r.subagents = a.Subagents
	for _, sub := range a.Subagents {
		r.tr.noteRuntime(decl.SubagentPrefix+sub, "subagents: %s (depth %d < max_depth %d)", sub, r.depth, r.maxDepth)
	}
}

// spawnable lists the agents spawn_agents may start: the declared
// sub-agents, or every other agent when none are declared.
func (p *Pool) spawnable(a *decl.Agent) []string {
	if len(a.Subagents) > 0 {
		return a.Subagents
	}
	var out []string
	for _, b := range p.reg.Agents {
		if b.Name != a.Name {
			out = append(out, b.Name)
		}
	}
	return out
}

// serversFor lists the servers an agent's use entries need connected.
func (p *Pool) serversFor(snap *poolSnapshot, a *decl.Agent) []string {
	need := map[string]bool{}
	sep := p.reg.Sep()
	for _, u := range a.Use {
		switch u.Kind {
		case decl.UseServer:
			if srv := p.servers[u.Name]; srv != nil && srv.Trusted {
				need[u.Name] = true
			}
		case decl.UseBundle:
			if b := p.bundles[u.Name]; b != nil && b.Server != "" {
				need[b.Server] = true
			}
			if b := p.bundles[u.Name]; b != nil {
				for _, n := range b.Tools {
					if t := snap.byName[n]; t != nil && t.Server != "" {
						need[t.Server] = true
					}
				}
			}
		case decl.UseTool:
			if t := snap.byName[u.Name]; t != nil && t.Server != "" && !t.Untrusted {
				need[t.Server] = true
			}
		case decl.UseGlob:
			for _, srv := range p.reg.Servers {
				if srv.Trusted && globMayReachServer(u.Name, srv.Name, sep) {
					need[srv.Name] = true
				}
			}
		}
	}
	out := make([]string, 0, len(need))
	for s := range need {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// stepSurface is what one workflow step selects through its bundles.
type stepSurface struct {
	addr    string
	bundles []string
	direct  map[string]bool // pool tools exposed directly
	meta    metaScopes
	servers []string
}

// resolveStep computes the tools a step's bundles select: across the
// bundles of one server allow lists intersect and deny lists unite, for
// direct and meta bundles alike. With an agent whose tools.allowed is set,
// direct tools outside it stay out (meta tools check it per call). While
// the step is active this is the agent's whole tool policy.
func (p *Pool) resolveStep(snap *poolSnapshot, a *decl.Agent, addr string, bundles []string, tr *trace) (*stepSurface, []warning) {
	r := &resolution{agent: a, step: addr, use: map[string]bool{}, allowed: map[string]bool{}, aliases: map[string]string{}, meta: metaScopes{}, tr: tr}
	if a == nil {
		r.agent = &decl.Agent{}
	} else {
		for _, al := range a.Aliases {
			r.aliases[al.Name] = al.Target
		}
	}
	direct := map[string][]selected{}
	var order []string
	for i, name := range bundles {
		b := p.bundles[name]
		if b == nil {
			r.warn(EventToolUnknown, "step names an unknown bundle; skipped", slog.String("step", addr), slog.String("bundle", name))
			continue
		}
		p.selectBundle(snap, r, b, fmt.Sprintf("step %s bundles[%d]", addr, i), direct, &order)
	}
	p.mergeDirect(snap, r, direct, order)
	r.applyAllowed(snap)
	s := &stepSurface{addr: addr, bundles: bundles, direct: r.allowed, meta: r.meta}
	need := map[string]bool{}
	for _, b := range bundles {
		if bb := p.bundles[b]; bb != nil && bb.Server != "" {
			need[bb.Server] = true
		}
	}
	for n := range s.direct {
		if t := snap.byName[n]; t != nil && t.Server != "" {
			need[t.Server] = true
		}
	}
	for srv := range need {
		s.servers = append(s.servers, srv)
	}
	slices.Sort(s.servers)
	return s, r.warnings
}

// globMayReachServer reports whether a use glob could match a tool of a
// server not connected yet: its literal prefix and "<server><sep>" agree.
func globMayReachServer(glob, server, sep string) bool {
	lit, ns := decl.LiteralPrefix(glob), server+sep
	return strings.HasPrefix(lit, ns) || strings.HasPrefix(ns, lit)
}
