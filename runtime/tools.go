package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/finder"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/internal/tools"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// addRuntimeTools offers the agent context's runtime tools (runtimeTools),
// each closed over the one part of the context it needs. st.mu is held.
func (st *agentState) addRuntimeTools(meta metaScopes, add func(*entry, bool)) {
	parts := runtimeParts{memory: st.memory, caller: (*batchCaller)(st), spawner: (*spawner)(st),
		catalog: (*catalog)(st), servers: (*metaServers)(st), spill: st.spill}
	runtimeTools(st.agent, st.res(), st.s.pool.agents, meta, st.maxBytes, parts, add)
}

// runtimeParts are what the runtime tools close over. Explain lists the
// tools with none of them: it runs nothing.
type runtimeParts struct {
	memory  tools.Memory
	caller  tools.Caller
	spawner tools.Spawner
	catalog tools.Catalog
	servers tools.Servers
	spill   tools.Spill
}

// runtimeTools gives add the runtime tools agent a gets with resolution
// res (agents describes its sub-agents; meta is its meta bundles' scope).
func runtimeTools(a *decl.Agent, res *resolution, agents map[string]*decl.Agent, meta metaScopes, maxBytes int, parts runtimeParts, add func(*entry, bool)) {
	put := func(t tools.Tool) {
		if res.offersRuntime(t.Name) {
			add(runtimeEntry(t), true)
		}
	}
	// The internal tools and output_read are offered only when tools.use
	// names them (runtime.NAME): the surface is what the spec says.
	if res.optIn[decl.ToolFinalReport] {
		put(tools.FinalReport(parts.memory))
	}
	if res.optIn[decl.ToolTaskStatus] {
		put(tools.TaskStatus(parts.memory))
	}
	if res.optIn[decl.ToolBatch] {
		put(tools.Batch(parts.caller))
	}
	for _, sub := range res.subagents {
		desc := ""
		if sa := agents[sub]; sa != nil {
			desc = sa.Description
		}
		put(tools.Subagent(sub, desc, parts.spawner))
	}
	if len(a.Router) > 0 {
		put(tools.Handoff(a.Name, a.Router))
	}
	if res.spawn {
		put(tools.SpawnAgents(parts.spawner))
		put(tools.ListAgents(parts.spawner))
	}
	if a.Discovery {
		for _, t := range tools.Discovery(parts.catalog) {
			put(t)
		}
	}
	servers := sortedKeys(meta)
	if len(servers) > 0 {
		for _, t := range tools.MetaBrowse(parts.servers, servers) {
			put(t)
		}
	}
	if len(servers) > 0 || a.Discovery {
		put(tools.MetaCall(parts.servers))
	}
	if maxBytes > 0 && res.optIn[decl.ToolOutputRead] {
		put(tools.OutputRead(parts.spill, maxBytes))
	}
}

func runtimeEntry(t tools.Tool) *entry {
	return &entry{info: ToolInfo{Name: t.Name, Description: t.Description, InputSchema: t.Schema, Kind: t.Kind, Namespace: t.Namespace},
		run: provider(t.Run), linked: t.Linked, noCap: t.NoCap, noBudget: t.NoBudget}
}

// batchCaller is agent__batch's view of an agent context: its calls go
// through the whole pipeline.
type batchCaller agentState

func (c *batchCaller) Call(ctx context.Context, tool string, args json.RawMessage) json.Marshaler {
	var r Result
	(*agentState)(c).call(&r, ctx, tool, args)
	return r
}

func (c *batchCaller) Refused(reason string) json.Marshaler { return Result{Error: reason} }

// spawner is the sub-agent tools' view of an agent context.
type spawner agentState

func (sp *spawner) Spawnable() []tools.AgentInfo {
	st := (*agentState)(sp)
	var out []tools.AgentInfo
	for _, name := range st.s.pool.spawnable(st.agent) {
		info := tools.AgentInfo{Name: name}
		if a := st.s.pool.agents[name]; a != nil {
			info.Description = a.Description
		}
		out = append(out, info)
	}
	return out
}

// Run runs a child session one level deeper, with its own resolved tools,
// driven by the host's Runner, else by the built-in one (runner.go).
func (sp *spawner) Run(ctx context.Context, name, prompt string) (string, error) {
	st := (*agentState)(sp)
	opts := st.s.opts
	runner := opts.Runner
	if runner == nil {
		runner = builtinRunner{}
	}
	opts.Depth++
	opts.depthLimit = st.res().maxDepth // the parent's bound holds all the way down
	opts.Memory = nil                   // the child has its own memory
	// on the parent's Host: its pools, queues and connections
	child, err := st.s.host.Open(ctx, st.s.reg, name, opts)
	if err != nil {
		return "", fmt.Errorf("sub-agent %q: %v", name, err)
	}
	defer child.Close()
	out, err := runner.Run(ctx, child, prompt)
	if err != nil {
		return "", fmt.Errorf("sub-agent %q: %v", name, err)
	}
	return out, nil
}

// Find ranks the tools the agent may load (or call) for a query, best
// first, marking the active ones. It is what tool_find returns.
func (s *Session) Find(query string, limit int) []FindHit {
	hits, _ := s.FindWithHint(query, limit)
	return hits
}

// FindWithHint is Find with the hint tool_find adds when no tool matched
// the query's words and the hits are a fallback (see finder.Finder.Find).
func (s *Session) FindWithHint(query string, limit int) ([]FindHit, string) {
	st := s.st.Load()
	if st == nil {
		return nil, ""
	}
	return (*catalog)(st).Find(context.Background(), query, limit)
}

// catalog is the discovery tools' view of an agent context: the pool
// tools it may load, and the ones it loaded.
type catalog agentState

func (c *catalog) Find(ctx context.Context, query string, limit int) ([]FindHit, string) {
	st := (*agentState)(c)
	if limit <= 0 {
		limit = 10
	}
	snap := st.s.pool.snap.Load()
	sf := st.surf.Load()
	allowed, overview := sf.findFilter(snap), func(limit int) finder.Overview {
		return sf.overview(snap, limit)
	}
	if can, ok := hostCan(ctx); ok && snap.needs&^can != 0 {
		allowed, overview = sf.findFilterFor(snap, can)
	}
	hits, hint := snap.finder.Find(query, limit, allowed, overview)
	out := make([]FindHit, len(hits))
	for i, h := range hits {
		active := sf.entry(h.Name) != nil
		out[i] = FindHit{Name: st.exposedName(h.Name), Description: snap.byName[h.Name].Description, Score: h.Score, Active: active}
	}
	if sh := st.s.findSkills(st, query, limit); len(sh) > 0 {
		out = mergeHits(out, sh, limit)
		if len(hits) == 0 {
			hint = "" // a skill matched the query's words
		}
	}
	return out, hint
}

// describable resolves a name (or alias) the agent may know about: a
// loadable pool tool or one of its callable tools.
func (st *agentState) describable(name string) (ToolInfo, *PoolTool, bool) {
	snap := st.s.pool.snap.Load()
	sf := st.surf.Load()
	if e := sf.entry(name); e != nil {
		return e.info, snap.byName[e.info.Name], true
	}
	if t := st.res().aliases[name]; t != "" {
		name = t
	}
	if sf.loadable[name] {
		if pt := snap.byName[name]; pt != nil {
			return ToolInfo{Name: pt.Name, Description: pt.Description, InputSchema: pipeline.NormalizeSchema(pt.InputSchema), Kind: pt.Kind}, pt, true
		}
	}
	return ToolInfo{}, nil, false
}

func (st *agentState) notFound(name string) error {
	msg := fmt.Sprintf("tool %q not found", name)
	if to, ok := st.s.pool.snap.Load().renamed[name]; ok {
		msg += "; it was renamed to " + to
	} else if near := didyoumean.Nearest(name, st.knownNames(), 3); len(near) > 0 {
		msg += "; did you mean " + quoteList(near) + "?"
	}
	if !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	return errors.New(msg + " Use " + decl.ToolFind + " to discover available tools.")
}

func (c *catalog) Describe(name string) (tools.Description, error) {
	st := (*agentState)(c)
	info, pt, ok := st.describable(name)
	if !ok {
		return tools.Description{}, st.notFound(name)
	}
	active := st.surf.Load().entry(info.Name) != nil
	d := tools.Description{Name: st.exposedName(info.Name), Description: info.Description, InputSchema: info.InputSchema, Active: active}
	if pt != nil {
		d.Category, d.Keywords = pt.Category, pt.Keywords
	}
	return d, nil
}

// Load activates tools, all or none, never outside the agent's policy. A
// runtime tool the agent already has (output_read, agent__final_report …)
// is skipped with the reason, not a failure of the whole batch.
func (c *catalog) Load(ctx context.Context, names []string) (tools.Loaded, error) {
	st := (*agentState)(c)
	snap := st.s.pool.snap.Load()
	sf := st.surf.Load()
	loadable := sf.loadable
	var canon []string
	var l tools.Loaded
	for _, n := range names {
		name := n
		if t := st.res().aliases[n]; t != "" {
			name = t
		}
		switch {
		case sf.entry(n) != nil && snap.byName[name] == nil:
			if !slices.ContainsFunc(l.Skipped, func(s tools.SkippedTool) bool { return s.Name == n }) {
				l.Skipped = append(l.Skipped, tools.SkippedTool{Name: n,
					Reason: "one of the runtime's own tools, offered without loading: call it directly"})
			}
		case loadable[name] && snap.byName[name] != nil:
			if err := hostMayUse(ctx, snap.byName[name]); err != nil {
				return tools.Loaded{}, fmt.Errorf("tool %q %v; nothing was loaded", n, err)
			}
			canon = append(canon, name)
		case snap.byName[name] != nil:
			return tools.Loaded{}, fmt.Errorf("tool %q not allowed for agent %q; nothing was loaded", n, st.agent.Name)
		default:
			return tools.Loaded{}, fmt.Errorf("%v Nothing was loaded.", st.notFound(n))
		}
	}
	st.mu.Lock()
	for _, n := range canon {
		if st.loaded[n] {
			if shown := st.exposedName(n); !slices.Contains(l.AlreadyActive, shown) {
				l.AlreadyActive = append(l.AlreadyActive, shown)
			}
			continue
		}
		st.loaded[n] = true
		pt := snap.byName[n]
		l.Tools = append(l.Tools, tools.LoadedTool{Name: st.exposedName(pt.Name), Description: pt.Description, InputSchema: pipeline.NormalizeSchema(pt.InputSchema)})
	}
	changed := len(l.Tools) > 0 && st.rebuildSurfaceLocked()
	l.ActiveCount = len(st.loaded)
	st.mu.Unlock()
	if changed {
		st.s.notify()
	}
	return l, nil
}

func (c *catalog) Active() []tools.ActiveTool {
	st := (*agentState)(c)
	snap := st.s.pool.snap.Load()
	st.mu.Lock()
	names := sortedKeys(st.loaded)
	st.mu.Unlock()
	var out []tools.ActiveTool
	for _, n := range names {
		if pt := snap.byName[n]; pt != nil {
			out = append(out, tools.ActiveTool{Name: st.exposedName(n), Description: pt.Description})
		}
	}
	slices.SortFunc(out, func(a, b tools.ActiveTool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

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
		ok = st.res().allowedBy(name, nil)
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
func (m *metaServers) Tools(ctx context.Context, server string) ([]UpstreamTool, error) {
	st := (*agentState)(m)
	if in, _ := st.metaPermits(server, ""); !in {
		return nil, st.scopeError(server)
	}
	up, err := st.upstream(ctx, server)
	if err != nil {
		return nil, err
	}
	var out []UpstreamTool
	can, known := hostCan(ctx)                        // what the call's host can use (hostneeds.go)
	served, _ := st.s.pool.served(server, up.Tools()) // on_drift (drift.go)
	for _, t := range served {
		if _, ok := st.metaPermits(server, t.Name); ok && (!known || t.Needs&^can == 0) {
			out = append(out, t)
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
		e := st.surf.Load().entry(name)
		if e == nil {
			// what a direct call of the name is told: not loaded (with the
			// way to load it) only when the agent may load it
			msg, _ := st.whyBlocked(name)
			return "", errors.New(msg)
		}
		if e.info.Kind == decl.KindMeta || decl.IsReservedToolName(e.info.Name) {
			return "", fmt.Errorf("tool %q is one of the runtime's own tools: call it directly, not through %s", name, decl.ToolMCPCall)
		}
		return st.invoke(ctx, e, args)
	}
	in, ok := st.metaPermits(server, tool)
	if !in {
		// outside the meta scope: a known tool of that server gets the
		// direct call's answer (not loaded, not allowed), anything else the scope
		if msg, reason := st.whyBlocked(server + sep + tool); reason != "not_found" {
			return "", errors.New(msg)
		}
		return "", st.scopeError(server)
	}
	if !ok {
		return "", fmt.Errorf("tool %q of server %q not allowed for agent %q", tool, server, st.agent.Name)
	}
	return st.invoke(ctx, st.metaEntry(server, tool), args)
}

// isActive reports whether an exposed name is callable now.
func (st *agentState) isActive(name string) bool {
	return st.surf.Load().entry(name) != nil
}

// metaEntry is a transient entry for a server tool reached by meta call,
// with the server's queue, timeout and cache.
func (st *agentState) metaEntry(server, tool string) *entry {
	srv := st.s.pool.servers[server]
	e := &entry{info: ToolInfo{Name: decl.ExposedName(server, st.s.reg.Sep(), tool), Kind: decl.KindMCP, Namespace: server},
		server: server, original: tool, linked: true}
	e.via = upstreamRun(server, tool)
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

// overviewMemo is a surface's last tool_find overview: it reads every
// loadable tool, and stays right while the pool snapshot and the surface
// (what the agent may load) are the same.
type overviewMemo struct {
	snap  *poolSnapshot
	limit int
	ov    finder.Overview
}

// findMemo is a tool_find filter and the finder it selects from (run-time
// enrichment replaces a snapshot's finder).
type findMemo struct {
	f       *finder.Finder
	allowed *search.Allowed
}

// findFilter is the pool tools sf lets the agent load, as tool_find's
// filter over snap's index: outside a step a set made once per finder and
// kept on the resolution every session of the agent shares; inside one,
// asked per candidate.
func (sf *surface) findFilter(snap *poolSnapshot) *search.Allowed {
	if sf.res != nil {
		if m := sf.res.find.Load(); m != nil && m.f == snap.finder {
			return m.allowed
		}
	}
	set, byName := sf.loadable, snap.byName // not sf: a shared filter must not hold a session's surface
	loadable := func(name string) bool { return set[name] && byName[name] != nil }
	if sf.res == nil {
		return search.AllowFunc(loadable)
	}
	m := &findMemo{f: snap.finder, allowed: snap.finder.Allow(loadable)}
	sf.res.find.Store(m)
	return m.allowed
}

// overview is finder.MakeOverview over the pool tools sf lets the agent
// load, made once per pool snapshot and limit.
func (sf *surface) overview(snap *poolSnapshot, limit int) finder.Overview {
	if m := sf.overviewMemo.Load(); m != nil && m.snap == snap && m.limit == limit {
		return m.ov
	}
	var tools []finder.Tool
	for _, t := range snap.tools {
		if sf.loadable[t.Name] {
			tools = append(tools, finder.Tool{Name: t.Name, Original: t.Original, Server: t.Server, Category: t.Category})
		}
	}
	ov := finder.MakeOverview(tools, limit)
	sf.overviewMemo.Store(&overviewMemo{snap: snap, limit: limit, ov: ov})
	return ov
}
