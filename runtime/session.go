package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/internal/redact"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// Session is one agent context: its resolved tools, its use of MCP
// connections, its queue waiters, loaded tools, memory and spilled outputs.
// Switch replaces the agent context; nothing carries over.
type Session struct {
	host    *Host
	ownHost bool // opened by Open: the host closes with the session
	reg     *Registry
	pool    *Pool
	opts    Options
	router  *router
	scrub   *redact.Redactor       // the registry's env() values; nil: nothing to scrub (secrets.go)
	tel     *telemetry.Instruments // nil: telemetry off

	swMu   sync.Mutex // held by Switch and Close
	st     atomic.Pointer[agentState]
	closed atomic.Bool

	subMu   sync.Mutex
	subs    map[int]func()
	nextSub int
}

func openSession(ctx context.Context, h *Host, p *Pool, reg *Registry, agent string, opts Options) (*Session, error) {
	opts = opts.withDefaults()
	if opts.models == nil {
		opts.models = newModels(reg, opts.Getenv)
	}
	s := &Session{host: h, reg: reg, pool: p, opts: opts, router: newRouter(reg, opts.Routes), subs: map[int]func(){}}
	s.scrub = pipeline.Secrets(reg, opts.Getenv, opts.Logger, opts.Depth == 0)
	s.tel = telemetry.New(opts.MeterProvider, opts.TracerProvider)
	st, err := s.build(ctx, agent)
	if err != nil {
		return nil, err
	}
	s.st.Store(st)
	return s, nil
}

// Agent returns the current agent's name ("" after Close).
func (s *Session) Agent() string {
	if st := s.st.Load(); st != nil {
		return st.agent.Name
	}
	return ""
}

// Tools returns what the agent can see and call now, sorted by name.
func (s *Session) Tools() []ToolInfo {
	st := s.st.Load()
	if st == nil {
		return nil
	}
	return slices.Clone(st.surf.Load().list)
}

// Call runs one tool call through the pipeline. It never panics and never
// blocks past ctx: every failure is an error Result.
//
// A call runs on the agent context current when it starts and completes
// there. A call that meets a context already being torn down by Switch has
// not started: it runs on the new agent if that agent has the tool, and
// fails with "agent switched to …" otherwise. A call still running when a
// forced teardown (the switch timeout) ends its context has its context
// cancelled and its late result discarded (an error Result and a
// tool.late_result event).
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) Result {
	st := s.st.Load()
	if st == nil || !st.enter() {
		return s.callAfterSwitch(ctx, st, name, args)
	}
	r := st.call(st.linkContext(ctx), name, args)
	if st.abandoned.Load() {
		r = st.lateResult(name, r)
	}
	st.exit()
	if r.OK && name == decl.ToolHandoff {
		r = s.switchAfterHandoff(ctx, r)
	}
	return r
}

// callAfterSwitch is Call for a call whose agent context was torn down
// before the call could start.
func (s *Session) callAfterSwitch(ctx context.Context, old *agentState, name string, args json.RawMessage) Result {
	st, err := s.enter(ctx, old)
	if err != nil {
		return Result{Error: err.Error()}
	}
	r := s.callOn(ctx, st, old, name, args)
	if r.OK && name == decl.ToolHandoff {
		r = s.switchAfterHandoff(ctx, r)
	}
	return r
}

// callOn runs a call on st, which enter pinned; it releases st.
func (s *Session) callOn(ctx context.Context, st, old *agentState, name string, args json.RawMessage) Result {
	defer st.exit()
	if old != nil && old.agent != st.agent && st.surf.Load().byName[name] == nil {
		event.Emit(st.log, slog.LevelWarn, EventToolBlocked, slog.String("tool", name), slog.String("agent", old.agent.Name),
			slog.String("reason", "agent_switched"), slog.String("switched_to", st.agent.Name))
		return Result{Error: fmt.Sprintf("agent switched to %q before the call started; %q is not one of its tools", st.agent.Name, name)}
	}
	r := st.call(st.linkContext(ctx), name, args)
	if st.abandoned.Load() {
		r = st.lateResult(name, r)
	}
	return r
}

// enter pins an agent context for a call, starting from st (the one last
// seen). A context being torn down has its successor stored already
// (Switch stores the new one first), so this follows the chain; only
// after Close is there none.
func (s *Session) enter(ctx context.Context, st *agentState) (*agentState, error) {
	for {
		if st == nil {
			return nil, errClosed
		}
		if st.enter() {
			return st, nil
		}
		select {
		case <-st.replaced:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		st = s.st.Load()
	}
}

var errClosed = errors.New("session closed")

// Switch builds the new agent's context, makes it current, then tears the
// old one down: it waits up to 5 s for the old context's in-flight calls,
// then forces the teardown (an agent.switch_timeout event), cancelling what
// still runs. A failed build leaves the session on its current agent.
func (s *Session) Switch(ctx context.Context, agent string) error {
	if s.pool.agents[agent] == nil {
		return s.unknownAgent(agent)
	}
	s.swMu.Lock()
	defer s.swMu.Unlock()
	if s.closed.Load() {
		return errClosed
	}
	st, err := s.build(ctx, agent)
	if err != nil {
		return err
	}
	old := s.st.Swap(st)
	close(old.replaced)
	old.teardown(true)
	s.notify()
	return nil
}

// Rebuild resolves the current agent's surface again, as Switch to the
// same agent does: for tools its servers list only now (a server lists
// some tools only to clients that declare sampling or elicitation, which
// the serving host's capabilities decide). Loaded tools and memory start
// over; serve calls it right after a host's initialize.
func (s *Session) Rebuild(ctx context.Context) error { return s.Switch(ctx, s.Agent()) }

// Close tears the agent context down (waiting up to 5 s for in-flight
// calls) and releases every server connection. It is idempotent.
func (s *Session) Close() error {
	s.swMu.Lock()
	defer s.swMu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	if st := s.st.Swap(nil); st != nil {
		close(st.replaced)
		st.teardown(false)
	}
	if s.ownHost {
		return s.host.Close()
	}
	return nil
}

// Subscribe registers fn to run when Tools() changed: tool_load, a step's
// tools, Switch, or an upstream tools/list_changed.
func (s *Session) Subscribe(fn func()) (cancel func()) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	id := s.nextSub
	s.nextSub++
	s.subs[id] = fn
	return func() {
		s.subMu.Lock()
		defer s.subMu.Unlock()
		delete(s.subs, id)
	}
}

func (s *Session) notify() {
	s.subMu.Lock()
	fns := make([]func(), 0, len(s.subs))
	for _, fn := range s.subs {
		fns = append(fns, fn)
	}
	s.subMu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Instructions are the agent's instructions (the spec's instructions),
// then the instructions from the MCP handshakes of the servers that set
// forward_instructions, in server order: what serve gives the host and the
// loop's system prompt. The other servers' are dropped: they may speak of
// tools the agent's lists hide.
func (s *Session) Instructions() []string {
	st := s.st.Load()
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []string
	if st.agent.Instructions != "" {
		out = append(out, st.agent.Instructions)
	}
	for _, name := range sortedKeys(st.ups) {
		if srv := st.s.pool.servers[name]; srv == nil || !srv.ForwardInstructions {
			continue // they may speak of tools the agent's lists hide
		}
		if c := st.ups[name]; c.up != nil {
			if in := c.up.Instructions(); in != "" {
				out = append(out, in)
			}
		}
	}
	return out
}

// Servers reports the servers this agent context connected or tried to.
func (s *Session) Servers() []ServerStatus {
	st := s.st.Load()
	if st == nil {
		return nil
	}
	snap := s.pool.snap.Load()
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []ServerStatus
	for _, name := range sortedKeys(st.ups) {
		c := st.ups[name]
		ss := ServerStatus{Name: name, Health: HealthRed}
		select {
		case <-c.ready:
		default:
			ss.Error = "starting"
			out = append(out, ss)
			continue
		}
		if c.err != nil {
			ss.Error = c.err.Error()
		} else {
			ss.Health = c.up.Health()
			if dr, ok := c.up.(downReporter); ok {
				if err := dr.Err(); err != nil {
					ss.Error = err.Error()
				}
			}
			for _, t := range snap.tools {
				if t.Server == name {
					ss.Tools++
				}
			}
		}
		out = append(out, ss)
	}
	return out
}

// ToolsForStep routes a workflow step to its bundles (deny by default),
// connects only the servers those bundles reference, and returns the
// step's tools. Until the next ToolsForStep, LeaveStep or Switch the step
// is the agent's whole policy: Tools() is the step's bundles (cut to
// tools.allowed when the agent wrote it) plus the runtime tools the agent
// declares (sub-agents, router, internal, discovery, output_read); its
// own tools.use and meta bundles are not in force.
func (s *Session) ToolsForStep(ctx context.Context, workflow, role, step string) ([]ToolInfo, error) {
	st, err := s.enter(ctx, s.st.Load())
	if err != nil {
		return nil, err
	}
	defer st.exit()
	bundles, _ := s.router.bundles(workflow, role, step)
	addr := decl.StepAddr(workflow, role, step)
	first, _ := s.pool.resolveStep(s.pool.snap.Load(), st.agent, addr, bundles, nil)
	st.connect(ctx, first.servers)
	surf, warns := s.pool.resolveStep(s.pool.snap.Load(), st.agent, addr, bundles, nil)
	st.emitWarnings(warns)
	st.mu.Lock()
	entered := st.step == nil || st.step.addr != surf.addr // prompts and resources follow the step (features.go)
	st.step = surf
	changed := st.rebuildSurfaceLocked()
	list := st.stepTools()
	st.mu.Unlock()
	if changed || entered {
		s.notify()
	}
	return list, nil
}

// LeaveStep ends the step ToolsForStep entered: the agent's own tools are
// in force again. Outside a step it does nothing.
func (s *Session) LeaveStep() {
	st := s.st.Load()
	if st == nil {
		return
	}
	st.mu.Lock()
	if st.step == nil {
		st.mu.Unlock()
		return
	}
	st.step = nil
	st.rebuildSurfaceLocked()
	st.mu.Unlock()
	s.notify() // the prompts and resources change with the step even when the tools do not

}

func (s *Session) unknownAgent(name string) error {
	var names []string
	for _, a := range s.reg.Agents {
		names = append(names, a.Name)
	}
	msg := fmt.Sprintf("unknown agent %q", name)
	if near := didyoumean.Nearest(name, names, 3); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", near[0])
	}
	return errors.New(msg)
}

// agentState is one built agent context.
type agentState struct {
	s      *Session
	agent  *decl.Agent
	res    *resolution
	log    *slog.Logger
	memory Memory

	ctx    context.Context // lives until teardown; cancels queue waiters and linked calls
	cancel context.CancelFunc

	inflight  atomic.Int64 // calls running; closedBit set once teardown began
	drained   chan struct{}
	drainMu   sync.Once
	stopWait  chan struct{} // closed when teardown begins: queue waiters give up
	replaced  chan struct{} // closed once the session no longer points here (Switch, Close)
	abandoned atomic.Bool   // set by a forced teardown: results arriving later are discarded

	linked atomic.Pointer[agentLinked] // the last caller context linked to ctx

	surf atomic.Pointer[surface]

	maxBytes int
	budget   pipeline.Budget
	spill    *pipeline.Spill
	cache    *pipeline.Cache

	mu       sync.Mutex // guards what follows
	ups      map[string]*upstreamConn
	loaded   map[string]bool // tools activated by tool_load
	step     *stepSurface
	entries  map[*PoolTool]*entry
	builtins map[string]builtInstance // by policy name; closed at teardown
	closers  []func() error
	torndown bool

	featureWatch []string // servers whose prompt/resource list changes are watched (features.go)
}

const closedBit = 1 << 62

func (st *agentState) enter() bool {
	if st.inflight.Add(1)&closedBit != 0 {
		st.exit()
		return false
	}
	return true
}

func (st *agentState) exit() {
	if st.inflight.Add(-1) == closedBit {
		st.drainMu.Do(func() { close(st.drained) })
	}
}

// build makes an agent context: resolve, connect, resolve again over the
// live tool lists, then expose.
func (s *Session) build(ctx context.Context, name string) (*agentState, error) {
	a := s.pool.agents[name]
	if a == nil {
		return nil, s.unknownAgent(name)
	}
	start := time.Now()
	st := &agentState{
		s: s, agent: a, log: s.opts.Logger, memory: s.opts.Memory,
		drained: make(chan struct{}), stopWait: make(chan struct{}), replaced: make(chan struct{}), ups: map[string]*upstreamConn{},
		loaded: map[string]bool{}, entries: map[*PoolTool]*entry{}, builtins: map[string]builtInstance{},
		maxBytes: s.reg.Defaults.ResponseMaxBytes, budget: pipeline.Budget{Limit: int64(s.reg.Defaults.ContextBudget)},
		cache: pipeline.NewCache(),
	}
	if st.memory == nil {
		st.memory = newMemStore()
	}
	st.spill = pipeline.NewSpill(s.opts.SpillDir)
	st.ctx, st.cancel = context.WithCancel(context.WithoutCancel(ctx))
	st.connect(ctx, s.pool.serversFor(s.pool.snap.Load(), a))
	st.res = s.pool.resolveAgent(s.pool.snap.Load(), a, s.opts.Depth, s.opts.depthLimit, nil)
	st.emitWarnings(st.res.warnings)
	st.reportCollisions() // those of the lock file and declared tools, which no server start reports
	st.mu.Lock()
	st.rebuildSurfaceLocked()
	st.mu.Unlock()
	if st.log.Enabled(ctx, slog.LevelInfo) {
		st.log.LogAttrs(ctx, slog.LevelInfo, EventAgentBuild,
			slog.String("agent", a.Name), slog.Int("depth", s.opts.Depth),
			slog.Int("tools", len(st.surf.Load().list)), slog.Any("servers", sortedKeys(st.ups)),
			slog.Bool("discovery", a.Discovery), slog.Float64("latency_ms", ms(time.Since(start))))
	}
	return st, nil
}

func (st *agentState) emitWarnings(ws []warning) {
	for _, w := range ws {
		if w.once != "" {
			if _, logged := st.s.pool.warned.LoadOrStore(w.once, true); logged {
				continue
			}
		}
		attrs := append([]slog.Attr{slog.String("reason", w.msg)}, w.attrs...)
		event.Emit(st.log, slog.LevelWarn, w.event, attrs...)
	}
}

// teardown stops new calls, frees queued ones, waits up to 5 s for the
// running ones (then forces), and releases everything the context owns.
func (st *agentState) teardown(switching bool) {
	close(st.stopWait) // calls still queued have not started: they end now
	if st.inflight.Add(closedBit) == closedBit {
		st.drainMu.Do(func() { close(st.drained) })
	}
	forced := false
	timer := time.NewTimer(switchGrace)
	select {
	case <-st.drained:
	case <-timer.C:
		forced = true
	}
	timer.Stop()
	if forced {
		st.abandoned.Store(true) // before cancel: a call ending on the cancel is late
		name := EventAgentSwitchTimeout
		if !switching {
			name = EventAgentTeardown
		}
		event.Emit(st.log, slog.LevelWarn, name, slog.String("agent", st.agent.Name),
			slog.Int64("in_flight", st.inflight.Load()&^closedBit), slog.String("reason", fmt.Sprintf("in-flight calls exceeded %s; forcing teardown", switchGrace)))
	}
	st.cancel()
	st.mu.Lock()
	st.torndown = true
	ups := st.ups
	closers := st.closers
	st.closers = nil
	st.mu.Unlock()
	for _, name := range sortedKeys(ups) {
		ups[name].release()
	}
	for _, c := range closers {
		_ = c()
	}
	st.spill.Close()
	event.Emit(st.log, slog.LevelInfo, EventAgentTeardown, slog.String("agent", st.agent.Name),
		slog.Bool("forced", forced), slog.Int("servers", len(ups)))
}

// lateResult replaces the result of a call that outlived a forced
// teardown: the agent it ran for is gone, so its answer is not delivered.
func (st *agentState) lateResult(name string, r Result) Result {
	status := "ok"
	if !r.OK {
		status = "failed"
	}
	event.Emit(st.log, slog.LevelWarn, EventToolLateResult, slog.String("tool", name), slog.String("agent", st.agent.Name),
		slog.String("status", status), slog.Float64("latency_ms", ms(r.Latency)), slog.Int("chars_out", len(r.Result)))
	return Result{Kind: r.Kind, Namespace: r.Namespace, Latency: r.Latency,
		Error: fmt.Sprintf("agent %q was torn down while the call ran (forced after %s); its result was discarded", st.agent.Name, switchGrace)}
}

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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
