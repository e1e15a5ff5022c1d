package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
)

// A Flight is a tools/call that Forward sent, until its answer comes or
// Abandon takes it back.
//
// Forward is CallMeta without a goroutine waiting and without a context:
// the answer comes on the connection's reading goroutine, and the caller
// ends the call itself (Abandon), so a call needs no context of its own, no
// watch on one and no closure per layer. That was most of what an agent
// did per proxied call beyond a relay's work.
type Flight struct {
	s      *server
	live   *liveSession
	id     int64 // the request's id on the line
	callID uint64
	caller Caller
	name   string
	done   func(Result, error)
}

// Forward sends tools/call for name on a stdio server's lean connection,
// with meta as the request's _meta (nil: none).
// done gets what CallMeta would return (a tool's failure is
// Result.IsError; a transport failure an error naming server and tool),
// once, on the connection's reading goroutine or before Forward returns;
// unless Abandon takes the call back first, and then never. caller gets
// what the server asks while the call runs, as with CallMeta; it must
// not want progress (nobody waits for the last notices). nil: the server
// is not up on a lean connection, and nothing was done.
func (c *Conn) Forward(caller Caller, name string, args json.RawMessage, meta map[string]any, done func(Result, error)) *Flight {
	s := c.s
	l := s.live.Load()
	if l == nil || l.lean == nil || caller != nil && caller.WantsProgress() {
		return nil
	}
	f := &Flight{s: s, live: l, caller: caller, name: name, done: done}
	if len(args) > 0 && !isObject(args) {
		done(Result{}, fmt.Errorf("server %q: tool %q: arguments must be a JSON object", s.cfg.Name, name))
		return f
	}
	l.inflight.Add(1)
	if caller != nil {
		f.callID = s.calls.add(caller)
	}
	id, line, err := l.lean.request(name, args, meta)
	if err != nil { // already "calling "tools/call": …"
		f.end()
		done(s.answer(name, Result{}, err))
		return f
	}
	f.id = id
	if err := l.lean.conn.Send(context.Background(), id, line, f.answered); err != nil {
		f.answered(nil, err)
	}
	return f
}

// answered is the response line to the request (or why none will come).
func (f *Flight) answered(line []byte, err error) {
	f.end()
	res, err := f.live.lean.response(context.Background(), f.id, line, err)
	f.done(f.s.answer(f.name, res, err))
}

// end is the call's end on the connection: it no longer counts as in
// flight, nor gets what the server asks.
func (f *Flight) end() {
	if f.caller != nil {
		f.s.calls.remove(f.callID)
	}
	f.live.inflight.Add(-1)
}

// Abandon takes the call back, if its answer has not come: then done is
// never called, and the server is told the call is cancelled for reason,
// as go-sdk tells it. false: the answer came first (done has run, or is
// running).
func (f *Flight) Abandon(reason error) bool {
	if f.id == 0 || !f.live.lean.conn.Abandon(f.id) { // 0: refused before it was sent
		return false
	}
	f.end()
	f.live.lean.cancel(f.id, reason)
	return true
}
