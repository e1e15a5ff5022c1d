package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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
	steps   sync.Map               // step address → its bundles, as first routed (Registry.Route may be a host function)
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
	p.startEnrichment(opts.models, opts.Logger, opts.Store)
	s := &Session{host: h, reg: reg, pool: p, opts: opts, subs: map[int]func(){}}
	s.scrub = pipeline.Secrets(reg, opts.Getenv, opts.Logger, opts.Depth == 0)
	s.opts.Logger = slog.New(s.scrub.Handler(opts.Logger.Handler())) // events carry what hosts and servers sent
	tel, err := telemetry.New(opts.MeterProvider, opts.TracerProvider)
	if err != nil {
		s.opts.Logger.Warn("telemetry.off", "error", err.Error())
	}
	s.tel = tel
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
	return st.surf.Load().tools()
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
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) (r Result) {
	st := s.st.Load()
	if st == nil || !st.enter() {
		return s.callAfterSwitch(ctx, st, name, args)
	}
	st.call(&r, st.linkContext(ctx), name, args)
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
	if old != nil && old.agent != st.agent && st.surf.Load().entry(name) == nil {
		event.Emit(st.log, slog.LevelWarn, EventToolBlocked, slog.String("tool", name), slog.String("agent", old.agent.Name),
			slog.String("reason", "agent_switched"), slog.String("switched_to", st.agent.Name))
		return Result{Error: fmt.Sprintf("agent switched to %q before the call started; %q is not one of its tools", st.agent.Name, name)}
	}
	var r Result
	st.call(&r, st.linkContext(ctx), name, args)
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
		return unknownAgent(s.reg, agent)
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
	s.host.mgr.ForgetHost(s)
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
	addr := decl.StepAddr(workflow, role, step)
	bundles := s.stepBundles(addr, workflow, role, step)
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

// stepBundles routes a step once per session: a step keeps the bundles it
// first got.
func (s *Session) stepBundles(addr, workflow, role, step string) []string {
	if b, ok := s.steps.Load(addr); ok {
		return b.([]string)
	}
	b, _ := route(s.reg, s.opts.Routes, workflow, role, step)
	s.steps.Store(addr, b)
	return b
}

// route returns a step's bundles: the Options.Routes override (overridden)
// or the registry's route.
func route(reg *Registry, overrides map[string][]string, workflow, role, step string) (bundles []string, overridden bool) {
	if b, ok := overrides[decl.StepAddr(workflow, role, step)]; ok {
		return b, true
	}
	return reg.StepBundles(workflow, role, step), false
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

func unknownAgent(reg *Registry, name string) error {
	var names []string
	for _, a := range reg.Agents {
		names = append(names, a.Name)
	}
	msg := fmt.Sprintf("unknown agent %q", name)
	if near := didyoumean.Nearest(name, names, 3); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", near[0])
	}
	return errors.New(msg)
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
