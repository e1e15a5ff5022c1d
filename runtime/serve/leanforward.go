package serve

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
	"github.com/toolgen-dev/toolgen/runtime"
)

// forwarder is a Session that runs a plain proxied call without a context
// per call (runtime.Session.Forward).
type forwarder interface {
	Forward(ctx context.Context, name string, args json.RawMessage, done func(runtime.Result)) *runtime.Forwarded
	MayForward(name string) bool
}

// forwardCall is a host's call that the session forwards, in lc.ours
// while it runs.
type forwardCall struct {
	lc  *leanCalls
	key idKey
	f   atomic.Pointer[runtime.Forwarded] // once Forward returned
}

// forward starts a host's plain call of a proxied tool on the shortest
// path: a tools/call of an older revision whose params are a name and
// arguments only (no _meta: no progress token, no trace context), on an
// initialized connection without extensions that take calls, of a tool
// the session forwards. The steps a call's own context carried (the
// host, its caller) come from the connection's (callCtx), made once.
// false: not such a call, and nothing was done.
func (lc *leanCalls) forward(key idKey, params []byte) bool {
	fw, ok := lc.s.sess.(forwarder)
	if !ok {
		return false
	}
	ss := lc.ss.Load()
	if ss == nil || ss.InitializeParams() == nil || lc.s.takesCalls() {
		return false
	}
	name, args, ok := readPlainCall(params)
	if !ok {
		return false
	}
	lc.mu.Lock()
	if _, busy := lc.ours[key]; busy || lc.sdk[key] > 0 || lc.ctx.Err() != nil {
		lc.mu.Unlock()
		return false // refused as start refuses it
	}
	fc := &forwardCall{lc: lc, key: key}
	lc.ours[key] = fc // before Forward: its answer may come before it returns
	lc.wg.Add(1)
	lc.mu.Unlock()
	if len(args) == 0 || jsonrpcline.IsNull(args) {
		args = emptyObject
	}
	f := fw.Forward(lc.callCtx(ss), name, args, fc.answered)
	if f == nil {
		lc.done(key)
		lc.wg.Done()
		return false
	}
	fc.f.Store(f)
	if lc.ctx.Err() != nil {
		f.Cancel() // close ran meanwhile, before f could be found
	}
	return true
}

var emptyObject = json.RawMessage(`{}`)

func (fc *forwardCall) cancel() {
	if f := fc.f.Load(); f != nil {
		f.Cancel()
	}
}

// answered forgets the call's id, then writes its response, in a buffer
// that a plain result fits.
func (fc *forwardCall) answered(r runtime.Result) {
	lc := fc.lc
	lc.done(fc.key)
	text := max(len(r.Result), len(r.Error))
	lc.write(appendHead(make([]byte, 0, 224+len(fc.key.s)+len(r.Kind)+len(r.Namespace)+text+text/8), fc.key), r, nil)
	lc.wg.Done()
}

// callCtx is what a forwarded call's steps read from a context, as
// callInput puts it there for a call of this connection's host without
// _meta: made once per connection, on the reading goroutine.
func (lc *leanCalls) callCtx(ss *mcp.ServerSession) context.Context {
	if lc.fwdCtx == nil {
		lc.fwdCtx, _ = callInput(lc.ctx, &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{}})
	}
	return lc.fwdCtx
}

// readPlainCall reads params that are a tool's name and its arguments
// only, as go-sdk reads them; false for anything else.
func readPlainCall(params []byte) (name string, args []byte, ok bool) {
	if len(params) == 0 || params[0] != '{' {
		return "", nil, false
	}
	ok = true
	named := false
	jsonrpcline.Members(params, func(k, v []byte) {
		switch {
		case !ok:
		case jsonrpcline.KeyIs(k, "name"):
			if ok = v[0] == '"' && utf8.Valid(v); ok {
				name, named = jsonrpcline.Unquote(v), true
			}
		case jsonrpcline.KeyIs(k, "arguments"):
			args = v
		default:
			ok = false
		}
	})
	return name, args, ok && named
}
