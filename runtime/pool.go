package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/finder"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/search"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// PoolTool is one tool of a registry's pool: a declared tool, a server tool
// recorded in the lock file, or a server tool discovered at run time.
type PoolTool struct {
	Name        string // exposed name
	Description string
	InputSchema json.RawMessage
	Kind        ToolKind
	Server      string // KindMCP
	Original    string // KindMCP: the server's own name
	Category    string
	Keywords    []string
	Untrusted   bool       // from an untrusted server: reachable through meta tools only
	Decl        *decl.Tool // the Registry entry; nil for a tool found only at run time
	// Title, Annotations, OutputSchema, Meta: the server's (live), or the
	// Registry's (declared, or locked while the server is not connected).
	Title        string
	Annotations  *mcp.ToolAnnotations
	OutputSchema json.RawMessage
	Meta         mcp.Meta
	Needs        HostNeeds // a server tool's, live (ToolInfo.Needs)

	args *pipeline.ArgSchema // checks arguments; compiled on first call, shared by sessions (args.go)
}

// Pool is the set of tools one registry can offer: builtin, declared and
// server-discovered tools. It is shared by every session of the registry
// on one Host, cached as an immutable snapshot, and rebuilt when a
// server's tool list changes or is invalidated.
type Pool struct {
	reg     *Registry
	servers map[string]*decl.Server
	bundles map[string]*decl.Bundle
	agents  map[string]*decl.Agent
	queues  map[string]*pipeline.Queue
	locked  map[string]map[string]*decl.Tool // server → locked tools by the server's names (drift.go)

	warned sync.Map // keys of warnings logged once per pool

	// What every session shares, built on first use (catalog.go):
	entries sync.Map // entryKey → *entry, each pool tool's callable entry
	rest    sync.Map // restKey → RESTTool, compiled REST tools

	mu       sync.Mutex
	live     map[string][]UpstreamTool // server → its current tools/list
	snap     atomic.Pointer[poolSnapshot]
	reported map[collision]bool // collisions already logged

	// enrichment writes search queries for tools found at run time when
	// the spec opts in (Registry.Enrich); nil otherwise (enrich.go).
	enrichment *finder.Enrichment
	closed     bool
}

type poolSnapshot struct {
	tools      []*PoolTool // sorted by name
	byName     map[string]*PoolTool
	renamed    map[string]string // old name → current name
	finder     *finder.Finder
	collisions []collision // names two tools wanted; see rebuild
	needs      HostNeeds   // what some tool needs of a host (hostneeds.go)

	// agents are the resolutions and surfaces of the agents opened on this
	// snapshot, shared by their sessions (catalog.go).
	agents *agentViews
}

func newPool(reg *Registry) *Pool {
	p := &Pool{
		reg:     reg,
		servers: map[string]*decl.Server{},
		bundles: map[string]*decl.Bundle{},
		agents:  map[string]*decl.Agent{},
		queues:  map[string]*pipeline.Queue{},
		live:    map[string][]UpstreamTool{},
		locked:  lockedByServer(reg),
	}
	for i := range reg.Servers {
		p.servers[reg.Servers[i].Name] = &reg.Servers[i]
	}
	for i := range reg.Bundles {
		p.bundles[reg.Bundles[i].Name] = &reg.Bundles[i]
	}
	for i := range reg.Agents {
		p.agents[reg.Agents[i].Name] = &reg.Agents[i]
	}
	for _, q := range reg.Queues {
		p.queues[q.Name] = pipeline.NewQueue(q.Name, q.Concurrent)
	}
	p.rebuild()
	return p
}

// Tools returns the pool's tools, sorted by name.
func (p *Pool) Tools() []PoolTool {
	snap := p.snap.Load()
	out := make([]PoolTool, len(snap.tools))
	for i, t := range snap.tools {
		out[i] = *t
	}
	return out
}

// Invalidate drops what was discovered from a server (its configuration
// changed or it went away); the next resolution uses the lock file again.
func (p *Pool) Invalidate(server string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.live[server]; !ok {
		return
	}
	delete(p.live, server)
	p.rebuild()
}

// drift is how a live tools/list differs from the lock file; Held are
// the tools the server's on_drift keeps from agents.
type drift struct {
	Added, Removed, Changed, Held []string
}

func (d drift) empty() bool { return len(d.Added)+len(d.Removed)+len(d.Changed) == 0 }

// setLive records a server's live tools/list. It reports whether the pool
// changed and how the list drifted from the lock file.
func (p *Pool) setLive(server string, tools []UpstreamTool) (changed bool, d drift) {
	tools = slices.Clone(tools)
	// sort.Slice, not a generic sort: that is ~17 KB of code for this one
	// struct (surface.go's sortByName says why).
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	p.mu.Lock()
	defer p.mu.Unlock()
	old, had := p.live[server]
	if had && slices.EqualFunc(old, tools, sameUpstreamTool) {
		return false, drift{}
	}
	p.live[server] = tools
	p.rebuild()
	d = p.lockDrift(server, tools)
	_, d.Held = p.served(server, tools)
	return true, d
}

func sameUpstreamTool(a, b UpstreamTool) bool {
	return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema) &&
		a.Needs == b.Needs // learnt later than the tool may be listed (mcpconn's needs.go)
}

// lockDrift compares live tools with the locked tools of a server.
func (p *Pool) lockDrift(server string, live []UpstreamTool) drift {
	locked := p.locked[server]
	if len(locked) == 0 {
		return drift{} // never locked: nothing to drift from
	}
	srv := p.servers[server]
	var d drift
	seen := map[string]bool{}
	for _, lt := range live {
		if !serverExposes(srv, lt.Name) {
			continue
		}
		seen[lt.Name] = true
		t, ok := locked[lt.Name]
		switch {
		case !ok:
			d.Added = append(d.Added, lt.Name)
		case toolDrifted(t, lt):
			d.Changed = append(d.Changed, lt.Name)
		}
	}
	for name := range locked {
		if !seen[name] {
			d.Removed = append(d.Removed, name)
		}
	}
	slices.Sort(d.Removed)
	return d
}

func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// serverExposes applies a server's own allow/deny lists to one of its tools.
func serverExposes(srv *decl.Server, tool string) bool {
	if srv == nil {
		return true
	}
	return filterPermits(srv, decl.Filter{Allows: [][]string{srv.AllowTools}, Deny: srv.DenyTools}, tool)
}

// filterPermits applies a filter over a server's tools: names and globs
// for a trusted server, exact names only for an untrusted one, whose glob
// allow entries match nothing. Deny lists keep their globs: they can only
// take away.
func filterPermits(srv *decl.Server, f decl.Filter, tool string) bool {
	if srv != nil && !srv.Trusted {
		return f.PermitsExact(tool)
	}
	return f.Permits(tool)
}

// rebuild makes a new snapshot; p.mu is held (or p is not shared yet).
//
// Exposed names are unique. When two tools want one name the winner is
// fixed: the runtime's own tools over everything (IsReservedToolName),
// declared tools over server tools, and between server tools the server
// whose name sorts first, then the tool name that sorts first. Each such
// clash is kept in the snapshot for newCollisions to report.
func (p *Pool) rebuild() {
	reg := p.reg
	prev := p.snap.Load()
	snap := &poolSnapshot{byName: map[string]*PoolTool{}, renamed: map[string]string{}, agents: &agentViews{}}
	holder := map[string]string{} // exposed name → who has it, for reports
	add := func(t *PoolTool, who string) {
		if decl.IsReservedToolName(t.Name) {
			snap.collisions = append(snap.collisions, collision{t.Name, "the runtime's own tool", who})
			return
		}
		if h, taken := holder[t.Name]; taken {
			snap.collisions = append(snap.collisions, collision{t.Name, h, who})
			return
		}
		holder[t.Name] = who
		// keep the previous pointer for an unchanged tool, so that what
		// sessions built for it (builtin roots, entries) stays valid
		if prev != nil {
			if old := prev.byName[t.Name]; old != nil && samePoolTool(old, t) {
				t = old
			}
		}
		if t.args == nil {
			t.args = pipeline.NewArgSchema(t.InputSchema)
		}
		snap.byName[t.Name] = t
		snap.tools = append(snap.tools, t)
		snap.needs |= t.Needs
	}
	locked := map[string][]*decl.Tool{} // server → its locked tools, by the server's names
	for i := range reg.Tools {
		t := &reg.Tools[i]
		for _, old := range t.RenamedFrom {
			snap.renamed[old] = t.Name
		}
		if t.Kind == decl.KindMCP {
			locked[t.Server] = append(locked[t.Server], t)
			continue
		}
		pt := &PoolTool{
			Name: t.Name, Description: t.Description, InputSchema: p.declaredSchema(t), Kind: t.Kind,
			Category: t.Category, Keywords: t.Keywords, Decl: t,
		}
		declaredMeta(pt, t)
		add(pt, "declared tool "+t.Name)
	}
	servers := map[string]bool{}
	for s := range locked {
		servers[s] = true
	}
	for s := range p.live {
		servers[s] = true
	}
	for _, s := range sortedKeys(servers) {
		srv := p.servers[s]
		untrusted := srv != nil && !srv.Trusted
		declared := map[string]*decl.Tool{}
		for _, t := range locked[s] {
			declared[t.Original] = t
		}
		live, isLive := p.live[s]
		if !isLive { // not connected (yet): the lock file's tools stand in
			slices.SortFunc(locked[s], func(a, b *decl.Tool) int { return strings.Compare(a.Original, b.Original) })
			for _, t := range locked[s] {
				pt := &PoolTool{
					Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Kind: decl.KindMCP,
					Server: s, Original: t.Original, Category: t.Category, Keywords: t.Keywords, Untrusted: untrusted, Decl: t,
				}
				declaredMeta(pt, t)
				add(pt, fmt.Sprintf("server %s tool %q", s, t.Original))
			}
			continue
		}
		lockedByName := make(map[string]*decl.Tool, len(locked[s]))
		for _, t := range locked[s] {
			lockedByName[t.Original] = t
		}
		served, _ := p.served(s, live) // on_drift: pinned or held back (drift.go)
		for _, lt := range served {
			if !serverExposes(srv, lt.Name) {
				continue
			}
			pt := &PoolTool{
				Name: decl.ExposedName(s, reg.Sep(), lt.Name), Description: lt.Description,
				InputSchema: pipeline.NormalizeSchema(lt.InputSchema), Kind: decl.KindMCP, Server: s, Original: lt.Name,
				Untrusted: untrusted, Title: lt.Title, Annotations: lt.Annotations, OutputSchema: lt.OutputSchema, Meta: withHints(lt.Meta, lockedByName[lt.Name]),
				Needs: lt.Needs,
			}
			if d := declared[lt.Name]; d != nil {
				pt.Category, pt.Keywords, pt.Decl = d.Category, d.Keywords, d
			}
			add(pt, fmt.Sprintf("server %s tool %q", s, lt.Name))
		}
	}
	slices.SortFunc(snap.tools, func(a, b *PoolTool) int { return strings.Compare(a.Name, b.Name) })
	var prevFinder *finder.Finder
	if prev != nil {
		prevFinder = prev.finder
	}
	snap.finder = p.newFinder(snap.tools, prevFinder)
	p.snap.Store(snap)
	if prev != nil {
		p.dropEntries(snap)
	}
}

// collision is one exposed name two tools wanted; the loser is not in the
// pool.
type collision struct {
	name, winner, loser string
}

// newCollisions returns the current snapshot's collisions not reported
// yet, and marks them reported: each clash is logged once, by the session
// that first sees it, and again only if it goes away and comes back.
func (p *Pool) newCollisions() []collision {
	p.mu.Lock()
	defer p.mu.Unlock()
	cur := map[collision]bool{}
	var out []collision
	for _, c := range p.snap.Load().collisions {
		cur[c] = true
		if !p.reported[c] {
			out = append(out, c)
		}
	}
	p.reported = cur
	return out
}

func samePoolTool(a, b *PoolTool) bool {
	return a.Decl == b.Decl && a.Kind == b.Kind && a.Server == b.Server && a.Original == b.Original &&
		a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema) && a.Untrusted == b.Untrusted &&
		a.Title == b.Title && bytes.Equal(a.OutputSchema, b.OutputSchema) &&
		reflect.DeepEqual(a.Annotations, b.Annotations) && reflect.DeepEqual(a.Meta, b.Meta) && a.Needs == b.Needs
}

// newFinder is the search over tools: prev (or, for the first snapshot,
// the precompiled Registry.Index) plus the tools it lacks, added as a tier
// with the queries run-time enrichment wrote for them; without an index,
// one built at start-up. The run-time tools it adds are handed to the
// enrichment to ask about.
func (p *Pool) newFinder(tools []*PoolTool, prev *finder.Finder) *finder.Finder {
	base := prev
	switch {
	case base != nil:
	case p.reg.Index != nil:
		base = finder.Open(p.reg.Index)
	default:
		docs := make([]search.Doc, len(tools))
		for i, t := range tools {
			docs[i] = p.toolDoc(t)
		}
		p.wantQueries(tools, docs)
		return finder.Open(search.Build(docs))
	}
	var missing []search.Doc
	var missingTools []*PoolTool
	for _, t := range tools {
		if !base.Has(t.Name, t.Description) {
			missing = append(missing, p.toolDoc(t))
			missingTools = append(missingTools, t)
		}
	}
	p.wantQueries(missingTools, missing)
	return base.Add(missing...)
}

// startEnrichment turns on run-time enrichment when the spec opts in:
// once per pool, with the model and environment of the first session.
// Without a usable model (a key not set) the cache still answers.
func (p *Pool) startEnrichment(models *models, logger *slog.Logger, shared store.Store) {
	e := p.reg.Enrich
	if e == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.enrichment != nil || p.closed {
		return
	}
	en := &enrich.Enricher{Queries: e.Queries, Concurrency: e.Concurrency}
	if shared != nil { // replicas share answers: the model is asked once per fleet
		en.Shared = shared
	}
	if d := p.reg.Model(e.Model); d != nil {
		if n, err := d.ModelName.Resolve(models.getenv); err == nil {
			en.ModelName = d.Provider + " " + n
		}
	}
	m, err := models.get(e.Model)
	if err != nil {
		event.Emit(logger, slog.LevelWarn, event.ToolsEnriched, slog.String("error", "model "+e.Model+": "+err.Error()+"; answering from the cache only"))
	} else {
		en.Model = m
	}
	p.enrichment = finder.NewEnrichment(en, logger, p.addQueries)
	// Tools found before this session opened.
	var tools []*PoolTool
	var docs []search.Doc
	for _, t := range p.snap.Load().tools {
		if t.Kind == decl.KindMCP && t.Decl == nil {
			tools, docs = append(tools, t), append(docs, p.toolDoc(t))
		}
	}
	p.wantQueries(tools, docs)
}

// wantQueries hands the run-time enrichment the server tools among tools
// (docs are theirs) that are not behind an untrusted server: their text is
// not ours to send to the model.
func (p *Pool) wantQueries(tools []*PoolTool, docs []search.Doc) {
	if p.enrichment == nil {
		return
	}
	var want []search.Doc
	for i, t := range tools {
		if t.Kind == decl.KindMCP && !t.Untrusted {
			want = append(want, docs[i])
		}
	}
	if len(want) > 0 {
		p.enrichment.Want(want)
	}
}

// addQueries indexes again, with their queries, the enriched docs whose
// tools are still in the pool as they were asked about.
func (p *Pool) addQueries(docs []search.Doc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	snap := p.snap.Load()
	var keep []search.Doc
	for _, d := range docs {
		if t := snap.byName[d.Name]; t != nil && t.Description == d.Description {
			keep = append(keep, d)
		}
	}
	if len(keep) == 0 {
		return
	}
	next := *snap
	next.finder = snap.finder.Add(keep...)
	p.snap.Store(&next)
}

// close stops the run-time enrichment.
func (p *Pool) close() {
	p.mu.Lock()
	p.closed = true
	en := p.enrichment
	p.mu.Unlock()
	if en != nil {
		en.Close()
	}
}

func (p *Pool) toolDoc(t *PoolTool) search.Doc {
	d := toolDoc(t)
	if p.enrichment != nil && t.Kind == decl.KindMCP {
		d = p.enrichment.Doc(d)
	}
	return d
}

func toolDoc(t *PoolTool) search.Doc {
	return search.Doc{
		Name: t.Name, Description: t.Description, Category: t.Category,
		Keywords: t.Keywords, Params: search.SchemaParams(t.InputSchema),
	}
}

// declaredMeta sets a pool tool's title, annotations, output schema and
// _meta from its Registry entry.
func declaredMeta(pt *PoolTool, t *decl.Tool) {
	pt.Title, pt.OutputSchema = t.Title, t.OutputSchema
	pt.Annotations = mcpAnnotations(t.Annotations)
	if len(t.Meta) > 0 {
		var m mcp.Meta
		if json.Unmarshal(t.Meta, &m) == nil {
			pt.Meta = m
		}
	}
}

// mcpAnnotations is the MCP form of declared annotations; a hint left
// unsaid stays unsaid where MCP can say so (destructive, open world) and
// is false where it cannot (read only, idempotent).
func mcpAnnotations(a *decl.ToolAnnotations) *mcp.ToolAnnotations {
	if a == nil {
		return nil
	}
	m := &mcp.ToolAnnotations{DestructiveHint: a.Destructive, OpenWorldHint: a.OpenWorld}
	if a.ReadOnly != nil {
		m.ReadOnlyHint = *a.ReadOnly
	}
	if a.Idempotent != nil {
		m.IdempotentHint = *a.Idempotent
	}
	return m
}

// withHints adds to a live server tool's _meta the host hints toolgen
// generated for it (anthropic/searchHint from its keywords and stored
// enrichment), where the server set none of its own.
func withHints(live mcp.Meta, locked *decl.Tool) mcp.Meta {
	if locked == nil || len(locked.Meta) == 0 {
		return live
	}
	var gen mcp.Meta
	if json.Unmarshal(locked.Meta, &gen) != nil {
		return live
	}
	hint, ok := gen["anthropic/searchHint"]
	if !ok {
		return live
	}
	if _, set := live["anthropic/searchHint"]; set {
		return live
	}
	out := make(mcp.Meta, len(live)+1)
	for k, v := range live {
		out[k] = v
	}
	out["anthropic/searchHint"] = hint
	return out
}
