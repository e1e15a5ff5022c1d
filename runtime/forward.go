package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// Forward runs a proxied call as Call does, in two halves and with no
// goroutine waiting for the server: the steps before the request run on
// the caller's goroutine, the rest on the one that reads the server's
// answer. The call has no context of its own, nor a watch on one, nor a
// closure per layer; what can end it early holds the call itself: the
// tool's timeout (a place in the process's deadline wheel), the caller
// (Cancel), a forced teardown of the agent context. That was most of what
// an agent did per proxied call beyond a relay's work.
//
// ctx carries what the call's steps read (its host, the caller's id) and
// is not watched: it may be shared by many calls, a host connection's,
// and a call ends early only through Cancel. args are read before Forward
// returns. done gets the Result that Call would return, exactly once, on
// the connection's reading goroutine, the wheel's, the canceller's or
// before Forward returns; it must be quick.
//
// With telemetry, the call's spans are made from ctx, and the request
// carries their trace context, as Call's does.
//
// nil: the call is not one for this way, and nothing was done: a tool
// not of an MCP server, or of one not up on a connection that forwards (a
// stdio server's lean line); a tool behind a queue or a cache, or an
// agent with a shared store (the first steps could wait); a host's task
// call, or a caller wanting progress (whose last notices Call waits for).
func (s *Session) Forward(ctx context.Context, name string, args json.RawMessage, done func(Result)) *Forwarded {
	st := s.st.Load()
	if st == nil || name == decl.ToolHandoff || !st.enter() {
		return nil
	}
	f := st.forward(ctx, name, args, done)
	if f == nil {
		st.exit()
	}
	return f
}

// MayForward reports whether Forward may take a call of name, as far as
// the tool alone tells (not whether its server is up: Forward looks), so
// that a caller need not build its callback when it would not.
func (s *Session) MayForward(name string) bool {
	st := s.st.Load()
	if st == nil {
		return false
	}
	e := st.surf.Load().entry(name)
	return e != nil && st.forwardEntry(e)
}

// forwardEntry is what the entry alone rules out: a tool not of an MCP
// server, and one whose first steps could wait (a queue, a cache, a
// shared store: the rate limit and budget would wait on it).
func (st *agentState) forwardEntry(e *entry) bool {
	return e.upstream && e.q == nil && e.cacheTTL <= 0 && st.s.opts.Store == nil
}

// forwardUpstream is e's server when it is up on a connection that
// forwards (a stdio server's lean line), nil otherwise.
func (st *agentState) forwardUpstream(e *entry) forwarder {
	fw, ok := st.readyUpstream(e.server).(forwarder)
	if !ok || !fw.Async() {
		return nil
	}
	return fw
}

// forwarder is an Upstream that forwards (mcpconn.Conn.Forward).
type forwarder interface {
	Upstream
	Async() bool
	Forward(caller mcpconn.Caller, tool string, args json.RawMessage, meta map[string]any, done func(UpstreamResult, error)) *mcpconn.Flight
}

func (u *mcpUpstream) Async() bool { return u.c.Async() }

func (u *mcpUpstream) Forward(caller mcpconn.Caller, tool string, args json.RawMessage, meta map[string]any, done func(UpstreamResult, error)) *mcpconn.Flight {
	return u.c.Forward(caller, tool, args, meta, done)
}

// Forwarded is a call Forward started, until it ends.
type Forwarded struct {
	st    *agentState
	name  string
	c     callRun
	done  func(Result)
	ended atomic.Bool // whoever sets it ends the call
	timed error       // the tool's "timeout after …"; nil without a timeout
	span  telemetry.Upstream

	// set before the call is watched, read by what ends it early
	flight   *mcpconn.Flight
	fallback context.CancelFunc // the usual call's, when the server could not forward

	d          deadline   // in the wheel while it runs, with a timeout
	prev, next *Forwarded // in the agent's list while it runs (flights)
}

// forward is call's pipeline cut at the request: lookup, open
// (rate limit, debug event), arguments, the server's list, then the
// request, watched by the wheel and the agent's list; upstreamOutput and
// close when the answer comes (answered).
func (st *agentState) forward(ctx context.Context, name string, args json.RawMessage, done func(Result)) *Forwarded {
	sf := st.surf.Load()
	e := sf.entry(name)
	if e == nil || !st.forwardEntry(e) {
		return nil
	}
	if taskCalls != nil && taskCallFrom(ctx) != nil {
		return nil // a host's task call: the task step's (taskcall.go)
	}
	if c := mcpconn.CallerFrom(ctx); c != nil && c.WantsProgress() {
		return nil // as the agent's model's caller, standing in for it, would
	}
	fw := st.forwardUpstream(e)
	if fw == nil {
		return nil
	}
	f := &Forwarded{st: st, name: name, done: done, timed: e.timedOut, d: deadline{i: -1}}
	f.d.expire = f
	f.send(ctx, sf, e, args, fw)
	return f
}

// send is the first half: the steps before the request, then the
// request, or the call's end when a step refuses it.
func (f *Forwarded) send(ctx context.Context, sf *surface, e *entry, args json.RawMessage, fw forwarder) {
	st := f.st
	start := mono()
	owned := false // ended here: done is this goroutine's to call
	defer func() {
		if p := recover(); p != nil {
			if owned || !f.ended.Swap(true) {
				f.panicked(p)
			} else {
				f.logPanic(p) // its answer came meanwhile, and ends it
			}
		}
	}()
	err := st.open(&f.c, ctx, sf, e, args, start)
	if err == nil {
		args, err = st.checkArgs(e, args)
	}
	uctx := f.c.ctx
	var meta map[string]any
	if err == nil {
		if st.s.tel != nil || st.modelAnswers(e.server) {
			// the server's list, the caller that hears the server, the
			// span and its trace context
			uctx, f.span, err = st.upstreamOpen(uctx, fw, e.server, e.original)
			meta = telemetry.TraceMeta(uctx)
		} else if why := st.s.pool.withheld(e.server, e.original, fw.Tools()); why != "" {
			err = errors.New(why) // upstreamOpen's first step, all it does here
		}
	}
	if err != nil {
		owned = true
		f.ended.Store(true)
		f.end(pipeline.Output{}, err)
		return
	}
	if e.timeout > 0 {
		f.d.at = time.Now().Add(e.timeout)
	}
	if f.flight = fw.Forward(mcpconn.CallerFrom(uctx), e.original, args, meta, f.answered); f.flight == nil {
		// the server went down or changed since forwardUpstream: the
		// usual call, off this goroutine, which must not block
		cctx, cancel := context.WithCancel(uctx)
		f.fallback = cancel
		args := append(json.RawMessage(nil), args...)
		go func() {
			res, err := fw.Call(cctx, e.original, args)
			f.answered(res, err)
		}()
	}
	f.watch()
}

// answered is the second half: the server's answer through the rest of
// the pipeline to done, unless the call ended early.
func (f *Forwarded) answered(res UpstreamResult, err error) {
	if f.ended.Swap(true) {
		return // ended early: the answer is a late one
	}
	defer func() {
		if p := recover(); p != nil {
			f.panicked(p)
		}
	}()
	f.unwatch()
	out, err := upstreamOutput(f.span, res, err)
	f.end(out, err)
}

// Cancel ends the call, if it is still running, as a call whose context
// was cancelled ends: the server is told, and done gets the Result.
func (f *Forwarded) Cancel() { f.stop(context.Canceled) }

// expire is the wheel's: the tool's timeout came.
func (f *Forwarded) expire() { f.stop(context.DeadlineExceeded) }

// stop ends the call early for why (as ctx.Err() would read): the
// server is told why, and the call reports what Call reports then (the
// timeout's cause, or why).
func (f *Forwarded) stop(why error) {
	if f.ended.Swap(true) {
		return
	}
	if f.flight != nil {
		f.flight.Abandon(why)
	} else if f.fallback != nil {
		f.fallback()
	}
	f.unwatch()
	err := why
	if why == context.DeadlineExceeded && f.timed != nil {
		err = f.timed
	}
	f.span.End(err.Error(), false)
	f.end(pipeline.Output{}, err)
}

// end closes the call (the steps after the tool's own, its event) and
// hands done the Result, as Session.Call ends a call.
func (f *Forwarded) end(out pipeline.Output, err error) {
	st := f.st
	var r Result
	st.closeTo(&r, &f.c, out, err)
	if st.abandoned.Load() {
		r = st.lateResult(f.name, r)
	}
	done := f.done
	f.done = nil
	st.exit()
	done(r)
}

// panicked ends a call whose half panicked with an internal error, as
// Call's callers do, rather than take the goroutine (and the process)
// down.
// The caller has ended it (ended): done is its to call, unless end
// called it before the panic.
func (f *Forwarded) panicked(p any) {
	f.logPanic(p)
	f.unwatch()
	if done := f.done; done != nil {
		f.done = nil
		f.st.exit()
		done(Result{Error: fmt.Sprintf("tool %q failed: internal error", f.name)})
	}
}

func (f *Forwarded) logPanic(p any) {
	f.st.log.LogAttrs(context.Background(), slog.LevelError, "serve.panic", slog.String("tool", f.name), slog.String("panic", fmt.Sprint(p)))
}

// watch puts the running call where its early ends find it: the wheel,
// with a timeout, and the agent's list, which a forced teardown ends. A
// call that ended meanwhile is taken out again (its end may not have seen
// it in).
func (f *Forwarded) watch() {
	if !f.d.at.IsZero() {
		deadlines.add(&f.d)
	}
	f.st.flying.add(f)
	if f.ended.Load() {
		f.unwatch()
	}
}

func (f *Forwarded) unwatch() {
	if !f.d.at.IsZero() {
		deadlines.remove(&f.d)
	}
	f.st.flying.remove(f)
}

// flights are an agent context's forwarded calls in flight, which its
// forced teardown ends (as it cancels the contexts of other calls).
type flights struct {
	mu    sync.Mutex
	head  *Forwarded
	ended bool
}

func (l *flights) add(f *Forwarded) {
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		f.Cancel()
		return
	}
	f.next = l.head
	if l.head != nil {
		l.head.prev = f
	}
	l.head = f
	l.mu.Unlock()
}

func (l *flights) remove(f *Forwarded) {
	l.mu.Lock()
	if f.prev != nil {
		f.prev.next = f.next
	} else if l.head == f {
		l.head = f.next
	}
	if f.next != nil {
		f.next.prev = f.prev
	}
	f.prev, f.next = nil, nil
	l.mu.Unlock()
}

// end cancels every call in flight, and any added later.
func (l *flights) end() {
	l.mu.Lock()
	var all []*Forwarded
	for f := l.head; f != nil; f = f.next {
		all = append(all, f)
	}
	l.ended = true
	l.mu.Unlock()
	for _, f := range all {
		f.Cancel()
	}
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
