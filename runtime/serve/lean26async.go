package serve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startStatelessAsync starts a 2026-07-28 host's call of an upstream tool
// as a forwarded one, as an older host's (startForward): its first half
// on the host's reader, the rest, the response included, where the
// upstream's answer is read. Run on the reader (stateless), such a call
// held the reader until the upstream answered, so the upstream's reader
// had to wake it and the host's reader handed reading on to another
// goroutine first: two wake-ups per call that an older host's call does
// not pay. The call is still an inline round (rounds_inline.go): its
// context carries the round's caller, so when it asks its host something
// the round's waiter answers the request as before, and the second half
// ends the round as stateless does (leanRound.finish).
//
// Only a call no extension may take (tasks: the first half must not
// block the reader). false: nothing was done; the call runs the usual way
// (stateless).
func (lc *leanCalls) startStatelessAsync(ctx context.Context, key idKey, cancel context.CancelFunc, head []byte, req *mcp.CallToolRequest, host *mcp.InitializeParams) bool {
	s := lc.s
	fw, ok := s.sess.(forwarder)
	if !ok || !fw.MayForward(req.Params.Name) || s.mayTake(req) {
		return false // before the round and its callback are allocated: stateless makes its own
	}
	lr := &leanRound{lc: lc, key: key, head: head}
	rctx := s.rounds.startInline(ctx, cancel, &lr.round, host, &s.parked, lr)
	cctx, args := callInput(rctx, req)
	if !lr.forward(fw, ctx, cctx, req.Params.Name, args, lr.answered) {
		s.rounds.finishInline(&lr.round) // it never ran: no longer parked
		return false
	}
	return true
}
