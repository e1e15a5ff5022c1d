package serve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// startStatelessAsync starts a 2026-07-28 host's call of an upstream tool
// in two halves, as startAsync starts an older host's: the first on the
// host's reader, the rest, the response included, where the upstream's
// answer is read. Run on the reader (stateless), such a call held the
// reader until the upstream answered, so the upstream's reader had to
// wake it and the host's reader handed reading on to another goroutine
// first: two wake-ups per call that a 2025-11-25 call does not pay. The
// call is still an inline round (rounds_inline.go): when it asks its
// host something, the round's waiter answers the request as before.
//
// Only a call whose _meta an earlier call on this connection declared
// already (its host named, its capabilities given to the session) and
// that no extension may take: the first half must not block the reader.
// false: nothing was done; the call runs the usual way (stateless).
func (lc *leanCalls) startStatelessAsync(ctx context.Context, key idKey, cancel context.CancelFunc, head []byte, req *mcp.CallToolRequest) bool {
	s := lc.s
	as, ok := s.sess.(asyncSession)
	if !ok {
		return false
	}
	host := lc.metas.declared(req.Params.Meta)
	if host == nil || lc.l26.named.Load() != host || s.mayTake(req) {
		return false
	}
	s.hostDeclared(host.Capabilities, true) // as stateless does: the same, so at once
	lr := &leanRound{lc: lc, key: key, head: head}
	cctx, args := callInput(s.rounds.startInline(ctx, cancel, &lr.round, host, &s.parked, lr), req)
	leanStatelessCalls.Add(1) // before its answer can be written
	if !as.CallAsync(cctx, req.Params.Name, args, func(r runtime.Result) { lc.statelessAnswered(ctx, cancel, lr, r) }) {
		leanStatelessCalls.Add(-1)
		s.rounds.finishInline(&lr.round) // it never ran: no longer parked
		return false
	}
	return true
}

// statelessAnswered is the second half of a call startStatelessAsync
// started, on the upstream's reader (or where the request ended).
func (lc *leanCalls) statelessAnswered(ctx context.Context, cancel context.CancelFunc, lr *leanRound, r runtime.Result) {
	if !lc.s.rounds.finishInline(&lr.round) {
		// It asked: its result goes to the request that waits for it now,
		// whose answer handBack waits for; not on the upstream's reader.
		go func() {
			defer lc.wg.Done()
			defer cancel()
			lc.s.rounds.handBack(&lr.round, toCallToolResult(r), nil)
		}()
		return
	}
	defer lc.wg.Done()
	defer cancel()
	lc.answerInline(ctx, lr, r, nil)
}
