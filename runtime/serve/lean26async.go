package serve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startStatelessAsync starts a 2026-07-28 host's call of an upstream tool
// in two halves, as startAsync starts an older host's: the first on the
// host's reader, the rest, the response included, where the upstream's
// answer is read. Run on the reader (stateless), such a call held the
// reader until the upstream answered, so the upstream's reader had to
// wake it and the host's reader handed reading on to another goroutine
// first: two wake-ups per call that a 2025-11-25 call does not pay. The
// call is still an inline round (rounds_inline.go): when it asks its
// host something, the round's waiter answers the request as before, and
// the second half ends the round as stateless does (leanRound.finish).
//
// Only a call no extension may take (tasks: the first half must not
// block the reader). false: nothing was done; the call runs the usual way
// (stateless).
func (lc *leanCalls) startStatelessAsync(ctx context.Context, key idKey, cancel context.CancelFunc, head []byte, req *mcp.CallToolRequest, host *mcp.InitializeParams) bool {
	s := lc.s
	if as, ok := s.sess.(asyncSession); !ok || !as.MayCallAsync(req.Params.Name) || s.mayTake(req) {
		return false // before the round and its callback are allocated: stateless makes its own
	}
	lr := &leanRound{lc: lc, key: key, head: head}
	rctx := s.rounds.startInline(ctx, cancel, &lr.round, host, &s.parked, lr)
	if lc.forwardRound(ctx, rctx, lr, req) {
		return true
	}
	if !lc.callAsync(rctx, req, lr.answered) {
		s.rounds.finishInline(&lr.round) // it never ran: no longer parked
		return false
	}
	return true
}

// forwardRound starts the call of round lr as a forwarded one
// (Session.Forward), as 2025-xx hosts' plain calls are (leanforward.go):
// the round's context carries what the call's steps read, its host's
// questions included, and the request's end (ctx: the host's cancel, the
// connection's close) ends the call. false: the session does not forward
// it, and nothing was done.
func (lc *leanCalls) forwardRound(ctx, rctx context.Context, lr *leanRound, req *mcp.CallToolRequest) bool {
	fw, ok := lc.s.sess.(forwarder)
	if !ok {
		return false
	}
	lr.unwatch = context.AfterFunc(ctx, lr.cancelForward) // before an answer can end the round
	cctx, args := callInput(rctx, req)
	f := fw.Forward(cctx, req.Params.Name, args, lr.answered)
	if f == nil {
		lr.unwatch()
		lr.unwatch = nil
		return false
	}
	lr.fwd.Store(f)
	if ctx.Err() != nil {
		f.Cancel() // ended before f could be found
	}
	return true
}

func (lr *leanRound) cancelForward() {
	if f := lr.fwd.Load(); f != nil {
		f.Cancel()
	}
}
