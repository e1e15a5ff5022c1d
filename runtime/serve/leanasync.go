package serve

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// asyncSession is a Session that can run a call in two halves
// (runtime.Session.CallAsync): the first on the goroutine that read the
// host's line, the rest where the upstream server's answer is read.
type asyncSession interface {
	CallAsync(ctx context.Context, name string, args json.RawMessage, done func(runtime.Result)) bool
	MayCallAsync(name string) bool
}

// startAsync starts a host's call of an upstream tool that needs no
// goroutine of its own and is not one to forward (leanforward.go: it has
// a _meta, say), whose answer the upstream connection's reader writes: then the host's reader neither hands reading on nor wakes a
// follower, and no goroutine waits for the server (as a bare relay's
// two readers do). false: the call runs the usual way.
func (lc *leanCalls) startAsync(ctx context.Context, key idKey, cancel context.CancelFunc, head []byte, req *mcp.CallToolRequest) bool {
	return lc.callAsync(ctx, req, func(r runtime.Result) {
		defer lc.wg.Done()
		lc.answer(key, cancel, head, r, nil)
	})
}

// callAsync runs req through the session in two halves (CallAsync), done
// getting its result; false: the session cannot run it so, and did nothing.
func (lc *leanCalls) callAsync(ctx context.Context, req *mcp.CallToolRequest, done func(runtime.Result)) bool {
	as, ok := lc.s.sess.(asyncSession)
	if !ok {
		return false
	}
	cctx, args := callInput(ctx, req)
	return as.CallAsync(cctx, req.Params.Name, args, done)
}
