package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
	"github.com/toolgen-dev/toolgen/runtime"
)

// leanCalls answers a stdio host's tools/call without go-sdk's
// per-message machinery: the line is read where it arrives (on the
// reading goroutine, jsonrpcline's Take), run on a goroutine of its own
// through the same handler as go-sdk's path (Server.handle), and its
// response written at once. go-sdk decoded the params with a decoder that
// allocates tens of KiB per message, dispatched through its middleware
// and handler queue, and encoded the response twice; with the client
// side's own (internal/mcpconn), that was most of an agent's served path.
//
// Everything else stays go-sdk's: initialize and every other method,
// batches, and any tools/call this does not read exactly as go-sdk would
// (before initialize, an id other than a plain integer or string, params
// other than name, arguments and _meta, a request of the 2026-07-28
// protocol). What go-sdk does per request, this does too: the call runs
// on its own goroutine and context, which notifications/cancelled and the
// end of the connection cancel; the response always comes, with the
// result encoded as go-sdk encodes it; an id already in flight is refused
// the way go-sdk refuses it.
type leanCalls struct {
	s      *Server
	out    *lockedWriter
	ctx    context.Context // the connection's; ended by close
	cancel context.CancelCauseFunc
	ss     atomic.Pointer[mcp.ServerSession] // set once connected
	metas  metaCache                         // of the reading goroutine (take)
	fwdCtx context.Context                   // forwarded calls' (callCtx); of the reading goroutine

	mu   sync.Mutex
	ours map[idKey]canceller // tools/call in flight here
	sdk  map[idKey]int       // requests in flight in go-sdk
	wg   sync.WaitGroup      // calls
}

// idKey is a request id as go-sdk tells ids apart: an integer or a string.
type idKey struct {
	n   int64
	s   string
	str bool
}

func newLeanCalls(ctx context.Context, s *Server, out *lockedWriter) *leanCalls {
	ctx, cancel := context.WithCancelCause(ctx)
	return &leanCalls{s: s, out: out, ctx: ctx, cancel: cancel, ours: map[idKey]canceller{}, sdk: map[idKey]int{}}
}

// canceller ends a call of ours in flight: the host cancelled it, or the
// connection is closing.
type canceller interface{ cancel() }

// cancelFunc is the canceller of a call that runs on a context of its own.
type cancelFunc context.CancelFunc

func (f cancelFunc) cancel() { f() }

// take is jsonrpcline's Take: a checked line (one JSON value, a
// well-formed envelope if an object) that it answers itself, or lets go
// to go-sdk. A call's work it returns, for the reading goroutine to run
// (jsonrpcline hands reading on first).
func (lc *leanCalls) take(line []byte) (bool, func()) {
	if line[0] != '{' {
		return false, nil
	}
	var id, method, params []byte
	jsonrpcline.Pick(line, requestMembers, &id, &method, &params)
	if method == nil || jsonrpcline.IsNull(method) {
		return false, nil // a response to the server's own request: go-sdk's
	}
	if jsonrpcline.IsNull(id) {
		if string(method) == `"notifications/cancelled"` {
			return lc.cancelled(params), nil
		}
		return false, nil
	}
	key, exact := leanID(id)
	if string(method) == `"tools/call"` && exact {
		if taken := lc.forward(key, params); taken {
			return true, nil // no work here: the upstream's reader answers it (leanforward.go)
		}
		if req := lc.request(params); req != nil {
			return lc.start(key, id, req)
		}
	}
	return lc.toSDK(line, id), nil
}

var requestMembers = []string{"id", "method", "params"}

// leanID reads an id that go-sdk would answer with the same bytes: an
// integer within float64's exact range (go-sdk reads ids as float64), or a
// string of printable ASCII without escapes.
func leanID(tok []byte) (idKey, bool) {
	if tok[0] == '"' {
		for _, c := range tok[1 : len(tok)-1] {
			if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
				return idKey{}, false
			}
		}
		return idKey{s: string(tok[1 : len(tok)-1]), str: true}, true
	}
	n, ok := jsonrpcline.Int(tok)
	return idKey{n: n}, ok
}

// readToolCall reads a tools/call's params as go-sdk reads them: a name,
// arguments and a _meta (read by meta, unless null), nothing else; false
// when this does not read them exactly as go-sdk would (inputResponses,
// requestState, … are go-sdk's).
func readToolCall(params []byte, meta func(v []byte) (mcp.Meta, bool)) (*mcp.CallToolParamsRaw, bool) {
	if len(params) == 0 || params[0] != '{' {
		return nil, false
	}
	ok := true
	p := &mcp.CallToolParamsRaw{}
	jsonrpcline.Members(params, func(k, v []byte) {
		switch {
		case !ok:
		case jsonrpcline.KeyIs(k, "name"):
			if ok = v[0] == '"' && utf8.Valid(v); ok {
				p.Name = jsonrpcline.Unquote(v)
			}
		case jsonrpcline.KeyIs(k, "arguments"):
			p.Arguments = bytes.Clone(v)
		case jsonrpcline.KeyIs(k, "_meta"):
			p.Meta = nil
			if !jsonrpcline.IsNull(v) {
				p.Meta, ok = meta(v)
			}
		default:
			ok = false
		}
	})
	return p, ok
}

// request reads the params of a tools/call as go-sdk reads them, or nil
// when this does not read them exactly as go-sdk would.
func (lc *leanCalls) request(params []byte) *mcp.CallToolRequest {
	ss := lc.ss.Load()
	if ss == nil || ss.InitializeParams() == nil {
		return nil // not initialized yet: go-sdk refuses it
	}
	readable := false
	p, ok := readToolCall(params, func(v []byte) (m mcp.Meta, ok bool) {
		m, readable, ok = lc.metas.decode(v) // lean26.go
		return m, ok
	})
	if !ok {
		return nil
	}
	_, stateless := p.Meta[mcp.MetaKeyProtocolVersion]
	if stateless && !(readable && leanSession(ss)) {
		return nil // a request of the per-request protocol (SEP-2575) not read here: go-sdk's
	}
	req := &mcp.CallToolRequest{Session: ss, Params: p}
	if !stateless && lc.s.mayTake(req) {
		return nil // an extension (tasks) may take it: go-sdk's path offers it (takecall.go)
	}
	return req
}

// start notes the call and returns its work, which runs on a goroutine
// of its own (the one that read it, once reading is handed on): it
// neither holds up reading nor waits for a goroutine to wake. A worker
// keeps the stack its calls grew: a goroutine per call would grow (copy)
// its stack again on every call, which was a tenth of the agent's time
// per call.
func (lc *leanCalls) start(key idKey, idTok []byte, req *mcp.CallToolRequest) (bool, func()) {
	lc.mu.Lock()
	if _, busy := lc.ours[key]; busy {
		lc.mu.Unlock()
		lc.refuseDuplicate(key)
		return true, nil
	}
	if lc.sdk[key] > 0 {
		lc.mu.Unlock()
		return false, nil // go-sdk refuses it
	}
	if lc.ctx.Err() != nil { // closing: go-sdk refuses new calls then
		lc.mu.Unlock()
		return false, nil
	}
	ctx, cancel := context.WithCancel(lc.ctx)
	lc.ours[key] = cancelFunc(cancel)
	lc.wg.Add(1) // before close can wait (it cancels under mu)
	lc.mu.Unlock()
	head := responseHead(key)
	if _, v := req.Params.Meta[mcp.MetaKeyProtocolVersion]; v {
		host := lc.declare(req)
		if lc.startStatelessAsync(ctx, key, cancel, head, req, host) {
			return true, nil // as startForward's below (lean26async.go)
		}
		return true, func() { lc.stateless(ctx, key, cancel, head, req, host) }
	}
	if lc.startForward(ctx, key, cancel, head, req) {
		return true, nil // no work here: the upstream's reader answers it
	}
	return true, func() {
		defer lc.wg.Done()
		r, failed := lc.s.callTool(ctx, req)
		lc.answer(key, cancel, head, r, failed)
	}
}

// responseHead is the start of the response to a call with this id, up
// to its result.
func responseHead(key idKey) []byte {
	return appendHead(make([]byte, 0, 48+len(key.s)), key)
}

// appendHead appends the start of the response to a call with this id
// (leanID's: a string of printable ASCII without escapes, written as
// go-sdk writes it, or an integer).
func appendHead(dst []byte, key idKey) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if key.str {
		dst = append(dst, '"')
		dst = append(dst, key.s...)
		dst = append(dst, '"')
	} else {
		dst = strconv.AppendInt(dst, key.n, 10)
	}
	return append(dst, `,"result":`...)
}

// answer forgets a call's id, then writes its response: the host may
// reuse the id once it has the response.
func (lc *leanCalls) answer(key idKey, cancel context.CancelFunc, head []byte, r runtime.Result, failed *mcp.CallToolResult) {
	lc.done(key)
	cancel()
	lc.write(head, r, failed)
}

// write writes a call's response: failed, when go-sdk's path made it, or
// r.
func (lc *leanCalls) write(head []byte, r runtime.Result, failed *mcp.CallToolResult) {
	if failed != nil {
		lc.respond(head, failed)
	} else if line, ok := appendPlainResult(head, r); ok {
		lc.out.Write(append(line, "}\n"...))
	} else {
		lc.respond(head, toCallToolResult(r))
	}
}

// respond writes the response as go-sdk would, in one write: a text
// result encoded by hand, any other by encoding/json without HTML escaping
// (go-sdk's own MarshalJSON escapes it inside).
func (lc *leanCalls) respond(head []byte, res *mcp.CallToolResult) {
	if line, ok := appendTextResult(head, res); ok {
		lc.out.Write(append(line, "}\n"...))
		return
	}
	lc.writeEncoded(head, res, `{"content":[{"type":"text","text":"internal error: result not encodable"}],"isError":true}`)
}

// cancelled cancels a call of ours that notifications/cancelled names;
// other ids are go-sdk's to cancel.
func (lc *leanCalls) cancelled(params []byte) bool {
	if len(params) == 0 || params[0] != '{' {
		return false
	}
	var rid []byte
	jsonrpcline.Pick(params, []string{"requestId"}, &rid)
	if jsonrpcline.IsNull(rid) {
		return false
	}
	key, ok := sdkID(rid) // as go-sdk reads it: 41.0 is 41, "\u0061" is "a"
	if !ok {
		return false
	}
	lc.mu.Lock()
	c := lc.ours[key]
	lc.mu.Unlock()
	if c == nil {
		return false
	}
	c.cancel()
	return true
}

// toSDK notes a request go-sdk will answer, so that a tools/call reusing
// its id is refused as go-sdk would; one reusing a call of ours is refused
// here, since go-sdk cannot know.
func (lc *leanCalls) toSDK(line, idTok []byte) bool {
	key, ok := sdkID(idTok)
	if !ok {
		return false
	}
	lc.mu.Lock()
	_, busy := lc.ours[key]
	if !busy {
		lc.sdk[key]++
	}
	lc.mu.Unlock()
	if busy {
		lc.refuseDuplicate(key)
	}
	return busy
}

// answered is told of each response go-sdk writes.
func (lc *leanCalls) answered(id jsonrpc.ID) {
	var key idKey
	switch v := id.Raw().(type) {
	case int64:
		key = idKey{n: v}
	case string:
		key = idKey{s: v, str: true}
	default:
		return
	}
	lc.mu.Lock()
	if n := lc.sdk[key]; n > 1 {
		lc.sdk[key] = n - 1
	} else {
		delete(lc.sdk, key)
	}
	lc.mu.Unlock()
}

// sdkID is the id go-sdk makes of an id token.
func sdkID(tok []byte) (idKey, bool) {
	var v any
	if json.Unmarshal(tok, &v) != nil {
		return idKey{}, false
	}
	switch v := v.(type) {
	case float64:
		return idKey{n: int64(v)}, true
	case string:
		return idKey{s: v, str: true}, true
	}
	return idKey{}, false
}

// refuseDuplicate answers as go-sdk does a request whose id is in flight:
// an error response without an id, not to be taken for the other one's.
func (lc *leanCalls) refuseDuplicate(key idKey) {
	var id any = key.n
	if key.str {
		id = key.s
	}
	lc.out.answer(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: request ID %v already in use", id))
}

// close cancels the calls in flight and waits for their responses, before
// the connection closes.
func (lc *leanCalls) close() {
	lc.mu.Lock() // a call starting now has been counted, or sees the end
	lc.cancel(context.Canceled)
	var forwarded []*forwardCall // without a context to end with lc.ctx
	for _, c := range lc.ours {
		if fc, ok := c.(*forwardCall); ok {
			forwarded = append(forwarded, fc)
		}
	}
	lc.mu.Unlock()
	for _, fc := range forwarded {
		fc.cancel()
	}
	lc.wg.Wait()
}
