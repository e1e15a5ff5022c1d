package serve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// Inline rounds: a call of a stateless-revision host that runs on the
// goroutine that read it (the lean stdio path, lean26.go), as a
// 2025-11-25 call does. Most calls ask their host nothing; for them a
// round is a struct on that goroutine, with no worker to hand the call to
// and no channel to wait on. Only when the call needs its host's request
// answered before it ends — it asks something (round.ask) or lacks a
// capability it requires (round.require) — does a goroutine start
// (detachLocked) that waits for the call as a worker's call is waited for
// (rounds.wait) and answers the request with the input-required result.
// The call goes on where it runs; its result goes through done to the
// request that waits for it then (the host's retry), as a worker's does.

// roundReply answers the host's request that started an inline round.
type roundReply interface {
	reply(res mcp.Result, err error)
}

// startInline makes r the round of a call about to run on this goroutine
// and returns the context to run it with. ctx and cancel are the
// request's: the call is the request's until it asks, and ends when the
// round ends. reply answers the request if the call asks first.
func (rs *rounds) startInline(ctx context.Context, cancel context.CancelFunc, r *round, caps *mcp.InitializeParams, holder *parkedCalls, reply roundReply) context.Context {
	r.rs, r.reply = rs, reply
	r.ctx, r.cancel, r.caps, r.holder = ctx, cancel, caps, holder
	r.current = ctx // its progress and logs go with the request
	r.caller.r = r
	holder.add(r)
	return mcpconn.WithCaller(ctx, &r.caller) // withCaller fills in host
}

// detachLocked hands the answer to an inline call's request to a waiter
// of its own, once: the call is about to wait for its host. r.mu is held.
func (r *round) detachLocked() {
	if r.reply == nil || r.detached || r.over {
		return
	}
	r.detached = true
	r.done, r.asked, r.replied = make(chan roundDone, 1), make(chan struct{}, 1), make(chan struct{})
	go r.rs.answerInline(r)
}

// answerInline is the waiter of a detached inline call: it lets the
// questions asked together arrive (as wait does after the first), then
// answers the request as wait answers it.
func (rs *rounds) answerInline(r *round) {
	defer close(r.replied)
	ctx := r.ctx
	select {
	case <-r.asked:
		if settle(ctx) {
			r.reply.reply(rs.wait(ctx, r))
			return
		}
	case <-ctx.Done():
	}
	rs.end(r) // the host gave up on the call
	r.reply.reply(nil, ctx.Err())
}

// finishInline is told that the call of inline round r returned. here:
// the request is still the caller's to answer, with the call's result,
// and r is over; else the caller hands the result back (handBack).
func (rs *rounds) finishInline(r *round) (here bool) {
	r.mu.Lock()
	here = !r.detached
	if here {
		r.over = true
	}
	r.mu.Unlock()
	if here {
		r.holder.remove(r)
	}
	return here
}

// handBack gives a detached call's result to the request that waits for
// it, and returns once the request that started the call is answered, so
// that the reading side's count of calls in flight covers that answer.
func (rs *rounds) handBack(r *round, res mcp.Result, err error) {
	r.done <- roundDone{res, err}
	<-r.replied
}
