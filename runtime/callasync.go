package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// CallAsync runs a call as Call does, in two halves and with no goroutine
// waiting for the server: the steps before the upstream request run on
// the caller's goroutine, the rest on the goroutine that reads the
// server's answer (or ends ctx), which hands done the Result that Call
// would return, exactly once, possibly before CallAsync returns. It takes
// only calls whose first half cannot block: a tool of an upstream MCP
// server that is up on a connection that answers this way (a stdio
// server's), without a queue, a cache, a host's task call, a shared Store (the rate
// limit and budget would wait on it) or a caller wanting progress. For
// any other it returns false at once, doing nothing: use Call.
//
// done runs on a connection's reading goroutine: it must not wait for
// that server (a call to it, say) and should be quick.
func (s *Session) CallAsync(ctx context.Context, name string, args json.RawMessage, done func(Result)) bool {
	st := s.st.Load()
	if st == nil || name == decl.ToolHandoff || !st.enter() {
		return false
	}
	if !st.callAsync(st.linkContext(ctx), name, args, done) {
		st.exit()
		return false
	}
	return true
}

// MayCallAsync reports whether CallAsync may take a call of name: an
// upstream tool with no queue, cache or shared store. false: CallAsync
// would refuse it, so a caller need not build its callback.
func (s *Session) MayCallAsync(name string) bool {
	st := s.st.Load()
	if st == nil {
		return false
	}
	e := st.surf.Load().entry(name)
	return e != nil && st.asyncEntry(e)
}

// asyncEntry is callAsync's first test: what the entry alone rules out.
func (st *agentState) asyncEntry(e *entry) bool {
	return e.upstream && e.q == nil && e.cacheTTL <= 0 && st.s.opts.Store == nil
}

// asyncUpstream is an Upstream that can answer a call on its reading
// goroutine (mcpconn's lean stdio connection).
type asyncUpstream interface {
	Async() bool
	CallAsync(ctx context.Context, tool string, args json.RawMessage, done func(UpstreamResult, error)) bool
}

func (u *mcpUpstream) Async() bool { return u.c.Async() }

func (u *mcpUpstream) CallAsync(ctx context.Context, tool string, args json.RawMessage, done func(UpstreamResult, error)) bool {
	return u.c.CallAsync(ctx, tool, args, telemetry.TraceMeta(ctx), done)
}

// asyncCall is a call between its halves.
type asyncCall struct {
	st   *agentState
	name string
	c    callRun
	ctx  context.Context // bounded (the timeout's)
	b    bounds
	span telemetry.Upstream
	done func(Result)
}

// callAsync is call's pipeline for an upstream tool, cut at the request:
// lookup, open (span, rate limit), arguments, bound (timeout),
// upstreamOpen, then the request; upstreamOutput, settled and close when
// the answer comes (answered). false: the call is not one for this way,
// and nothing was done.
func (st *agentState) callAsync(ctx context.Context, name string, args json.RawMessage, done func(Result)) (taken bool) {
	sf := st.surf.Load()
	e := sf.entry(name)
	if e == nil || !st.asyncEntry(e) {
		return false
	}
	if taskCalls != nil && taskCallFrom(ctx) != nil {
		return false // a host's task call: the task step's (taskcall.go)
	}
	if c := mcpconn.CallerFrom(ctx); c != nil && c.WantsProgress() {
		return false
	}
	up := st.readyUpstream(e.server)
	au, ok := up.(asyncUpstream)
	if !ok || !au.Async() {
		return false
	}
	start := mono()
	a := &asyncCall{st: st, name: name, done: done}
	defer func() {
		if p := recover(); p != nil {
			a.panicked(p)
			taken = true
		}
	}()
	err := st.open(&a.c, ctx, sf, e, args, start)
	if err != nil {
		a.end(st.close(&a.c, pipeline.Output{}, err))
		return true
	}
	if args, err = st.checkArgs(e, args); err != nil {
		a.end(st.close(&a.c, pipeline.Output{}, err))
		return true
	}
	a.ctx, a.b = st.bound(a.c.ctx, e)
	uctx, span, err := st.upstreamOpen(a.ctx, up, e.server, e.original)
	if err != nil {
		a.b.release()
		a.end(st.close(&a.c, pipeline.Output{}, err))
		return true
	}
	a.span = span
	if !au.CallAsync(uctx, e.original, args, a.answered) {
		// the server went down or changed since Async: the usual call,
		// off this goroutine, which must not block
		go func() {
			res, err := up.Call(uctx, e.original, args)
			a.answered(res, err)
		}()
	}
	return true
}

// answered is the second half: the server's answer (or the call's end)
// through the rest of the pipeline to done.
func (a *asyncCall) answered(res UpstreamResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			a.panicked(p)
		}
	}()
	out, err := upstreamOutput(a.span, res, err)
	err = settled(a.ctx, err)
	a.b.release()
	a.end(a.st.close(&a.c, out, err))
}

// end hands done the Result, as Session.Call ends a call.
func (a *asyncCall) end(r Result) {
	st, done := a.st, a.done
	if done == nil {
		return // already ended (a panic after it)
	}
	a.done = nil
	if st.abandoned.Load() {
		r = st.lateResult(a.name, r)
	}
	st.exit()
	done(r)
}

// panicked ends a call whose half panicked with an internal error, as
// the synchronous path's callers do, rather than take the reading
// goroutine (and the process) down.
func (a *asyncCall) panicked(p any) {
	a.st.log.LogAttrs(context.Background(), slog.LevelError, "serve.panic", slog.String("tool", a.name), slog.String("panic", fmt.Sprint(p)))
	a.end(Result{Error: fmt.Sprintf("tool %q failed: internal error", a.name)})
}

// readyUpstream is the agent context's connection to server when it is
// up already, without waiting; nil otherwise.
func (st *agentState) readyUpstream(server string) Upstream {
	st.mu.Lock()
	c := st.ups[server]
	st.mu.Unlock()
	if c == nil {
		return nil
	}
	select {
	case <-c.ready:
	default:
		return nil
	}
	if c.err != nil {
		return nil
	}
	return c.up
}
