package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
)

// agentState is one built agent context.
type agentState struct {
	s     *Session
	agent *decl.Agent
	// resolved is the agent's use set over the pool's current snapshot:
	// resolved again when a server's tool list changes (toolsChanged).
	resolved atomic.Pointer[resolution]
	built    *resolution // the first, whose glob matches hold for the context (following); under mu
	log      *slog.Logger
	memory   Memory

	ctx    context.Context // lives until teardown; cancels queue waiters and linked calls
	cancel context.CancelFunc

	inflight  atomic.Int64 // calls running; closedBit set once teardown began
	drained   chan struct{}
	drainMu   sync.Once
	stopWait  chan struct{} // closed when teardown begins: queue waiters give up
	replaced  chan struct{} // closed once the session no longer points here (Switch, Close)
	abandoned atomic.Bool   // set by a forced teardown: results arriving later are discarded

	linked atomic.Pointer[agentLinked] // the last caller context linked to ctx
	links  agentLinks                  // merged caller contexts, which teardown cancels
	flying flights                     // forwarded calls, which a forced teardown ends (forward.go)

	surf atomic.Pointer[surface]

	maxBytes int
	budget   pipeline.Budget
	spill    *pipeline.Spill
	cache    *pipeline.Cache

	mu       sync.Mutex // guards what follows
	ups      map[string]*upstreamConn
	loaded   map[string]bool // tools activated by tool_load
	step     *stepSurface
	builtins map[string]builtInstance // by policy name, made on first call; closed at teardown
	closers  []func() error
	torndown bool

	featureWatch []string // servers whose prompt/resource list changes are watched (features.go)
}

const closedBit = 1 << 62

// res is the agent's resolution now.
func (st *agentState) res() *resolution { return st.resolved.Load() }

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
		return nil, unknownAgent(s.reg, name)
	}
	start := time.Now()
	st := &agentState{
		s: s, agent: a, log: s.opts.Logger,
		drained: make(chan struct{}), stopWait: make(chan struct{}), replaced: make(chan struct{}), ups: map[string]*upstreamConn{},
		loaded:   map[string]bool{},
		maxBytes: s.reg.Defaults.ResponseMaxBytes, budget: pipeline.Budget{Limit: int64(s.reg.Defaults.ContextBudget)},
		cache: pipeline.NewCache(),
	}
	if s.opts.Memory != nil {
		st.memory = agentMemory{s.opts.Memory, a.Name}
	} else {
		st.memory = newMemStore()
	}
	if s.opts.Store != nil {
		st.spill = pipeline.NewSharedSpill(s.opts.Store, a.Name)
	} else {
		st.spill = pipeline.NewSpill(s.opts.SpillDir)
	}
	st.ctx, st.cancel = context.WithCancel(context.WithoutCancel(ctx))
	st.connect(ctx, s.pool.serversFor(s.pool.snap.Load(), a))
	snap := s.pool.snap.Load()
	res := s.pool.resolution(snap, a, s.opts.Depth, s.opts.depthLimit)
	st.emitWarnings(res.warnings)
	st.reportCollisions() // those of the lock file and declared tools, which no server start reports
	st.mu.Lock()
	st.built = res
	if now := s.pool.snap.Load(); now != snap { // a list changed meanwhile (toolsChanged left it to us)
		res = following(s.pool.resolution(now, a, s.opts.Depth, s.opts.depthLimit), st.built)
	}
	st.resolved.Store(res)
	st.rebuildSurfaceLocked()
	st.mu.Unlock()
	if st.log.Enabled(ctx, slog.LevelInfo) {
		st.log.LogAttrs(ctx, slog.LevelInfo, EventAgentBuild,
			slog.String("agent", a.Name), slog.Int("depth", s.opts.Depth),
			slog.Int("tools", st.surf.Load().size()), slog.Any("servers", sortedKeys(st.ups)),
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
	st.flying.end()
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

// agentLinked is the context every tool of an agent context runs with: the
// caller's context, also cancelled when the agent context is torn down
// (st.ctx), so that a forced teardown reaches in-process Go tools too, not
// only the providers that link themselves. It holds no per-call state:
// calls with the same caller context share one, and the in-process fast
// path allocates nothing.
type agentLinked struct {
	parent context.Context
	agent  context.Context // st.ctx

	links *agentLinks               // the agent's, which its teardown cancels
	inner atomic.Pointer[linkedCtx] // Done of a cancellable parent, made on first use (link)
}

// linkContext returns ctx linked to the agent context, reusing the last
// link made for the same caller context.
func (st *agentState) linkContext(ctx context.Context) context.Context {
	if c := st.linked.Load(); c != nil && sameContext(c.parent, ctx) {
		return c
	}
	return st.newLink(ctx)
}

// newLink is linkContext's slow path, kept apart so that the fast one inlines.
func (st *agentState) newLink(ctx context.Context) context.Context {
	c := &agentLinked{parent: ctx, agent: st.ctx, links: &st.links}
	st.linked.Store(c)
	return c
}

// sameContext reports whether a and b are one interface value: the same
// dynamic type and the same data word. That is == for pointers (every
// cancellable context), costs two word compares, and cannot panic the way
// == does on a non-comparable type; equal values boxed apart merely miss.
func sameContext(a, b context.Context) bool {
	wa, wb := (*[2]unsafe.Pointer)(unsafe.Pointer(&a)), (*[2]unsafe.Pointer)(unsafe.Pointer(&b))
	return wa[0] == wb[0] && wa[1] == wb[1] // word by word: an array == calls memequal
}

func (c *agentLinked) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Value is the caller's, except that once linked the context package finds
// the merged context's own cancelCtx here, so that contexts derived from
// this one (a tool's timeout) hang off it directly, without a registration
// of their own (AfterFunc).
func (c *agentLinked) Value(key any) any {
	if _, ok := key.(linkedToKey); ok {
		return c.agent
	}
	if in := c.inner.Load(); in != nil {
		return in.ctx.Value(key)
	}
	return c.parent.Value(key)
}

func (c *agentLinked) Err() error {
	if err := c.parent.Err(); err != nil {
		return err
	}
	return c.agent.Err()
}

func (c *agentLinked) Done() <-chan struct{} {
	if c.parent.Done() == nil {
		return c.agent.Done() // the common case: nothing to merge
	}
	if in := c.inner.Load(); in != nil {
		return in.ctx.Done()
	}
	return c.link().ctx.Done()
}

// link makes the merged context on first use: a child of the caller's
// context, which ends it synchronously, and cancelled by the agent's
// teardown through links. context.AfterFunc on the caller's context did
// this before: it started a goroutine each time a call's context ended,
// and a served call's context ends after every call.
func (c *agentLinked) link() *linkedCtx {
	ctx, cancel := context.WithCancel(c.parent)
	in := &linkedCtx{ctx: ctx, cancel: cancel}
	if !c.inner.CompareAndSwap(nil, in) {
		cancel()
		return c.inner.Load()
	}
	c.links.add(c.agent, in)
	return in
}

// linkedToKey finds the agent context a call's context is linked to
// (agentLinked): a context that ends with it needs no link of its own
// (bound).
type linkedToKey struct{}

// AfterFunc lets contexts derived from this one (a tool's own timeouts)
// register without a goroutine each; the context package looks for it.
func (c *agentLinked) AfterFunc(f func()) (stop func() bool) {
	if c.parent.Done() == nil {
		return context.AfterFunc(c.agent, f)
	}
	var once sync.Once
	run := func() { once.Do(f) }
	s1 := context.AfterFunc(c.parent, run)
	s2 := context.AfterFunc(c.agent, run)
	return func() bool {
		a, b := s1(), s2()
		return a && b
	}
}
