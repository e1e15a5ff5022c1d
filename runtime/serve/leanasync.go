package serve

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// watched is a forwarded call that its request's context ends: a host's
// call with more than a name and arguments (a 2025-xx host's _meta, a
// 2026-07-28 host's round), whose steps read that request's own context.
type watched struct {
	unwatch func() bool // the watch on the request's context
	fwd     atomic.Pointer[runtime.Forwarded]
}

// forward starts the call as a forwarded one (Session.Forward): cctx
// carries what its steps read, and the end of ctx (the host's cancel, the
// connection's close) ends it. The watch is set before the call starts:
// its answer may come first. false: the session does not forward it, and
// nothing was done.
func (w *watched) forward(fw forwarder, ctx, cctx context.Context, name string, args json.RawMessage, done func(runtime.Result)) bool {
	w.unwatch = context.AfterFunc(ctx, w.cancelCall)
	f := fw.Forward(cctx, name, args, done)
	if f == nil {
		w.unwatch()
		w.unwatch = nil
		return false
	}
	w.fwd.Store(f)
	if ctx.Err() != nil {
		f.Cancel() // ended before f could be found
	}
	return true
}

func (w *watched) cancelCall() {
	if f := w.fwd.Load(); f != nil {
		f.Cancel()
	}
}

// stop ends the watch: the call is over.
func (w *watched) stop() {
	if w.unwatch != nil {
		w.unwatch()
	}
}

// metaCall is a 2025-xx host's forwarded call with a _meta (a progress
// token sends it the usual way: Forward refuses it).
type metaCall struct {
	watched
	lc     *leanCalls
	key    idKey
	cancel context.CancelFunc
	head   []byte
}

// startForward starts a 2025-xx host's call that is not a plain one
// (leanforward.go) as a forwarded call, on its own context; its answer
// is written by the upstream's reader. false: it runs the usual way.
func (lc *leanCalls) startForward(ctx context.Context, key idKey, cancel context.CancelFunc, head []byte, req *mcp.CallToolRequest) bool {
	fw, ok := lc.s.sess.(forwarder)
	if !ok {
		return false
	}
	mc := &metaCall{lc: lc, key: key, cancel: cancel, head: head}
	cctx, args := callInput(ctx, req)
	return mc.forward(fw, ctx, cctx, req.Params.Name, args, mc.answered)
}

func (mc *metaCall) answered(r runtime.Result) {
	mc.stop()
	mc.lc.answer(mc.key, mc.cancel, mc.head, r, nil)
	mc.lc.wg.Done()
}
