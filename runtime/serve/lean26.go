package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// The lean path for a stdio host of the stateless revision (2026-07-28):
// its tools/call carries the protocol version, the host's capabilities and
// info in _meta, and go-sdk checked that triple and took the declared
// capabilities on the host's first request. A later tools/call whose _meta
// go-sdk would accept the same way (the version exactly 2026-07-28, the
// capabilities an object, client info absent or an object, no log level)
// is answered here as go-sdk's path answers it: through the same
// input-required rounds (callInRounds), with resultType and the server's
// serverInfo in the result's _meta, or the same JSON-RPC error. Anything
// else stays go-sdk's, as for older hosts (lean.go).

// leanStatelessCalls counts the calls answered on this path (tests tell
// by it that the path was taken).
var leanStatelessCalls atomic.Int64

// leanSession reports whether ss is a session go-sdk started for a host
// of the stateless revision.
func leanSession(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion == StatelessRevision
}

// leanMeta reports whether this path reads a tools/call's _meta exactly
// as go-sdk would, for a host of the stateless revision.
func leanMeta(meta mcp.Meta) bool {
	_, ok := declaredIn(meta)
	return ok
}

// declaredIn is what the host declared in a request's _meta, as go-sdk
// takes it into the session's InitializeParams, when this path reads
// that _meta exactly as go-sdk would (ok).
func declaredIn(meta mcp.Meta) (_ *mcp.InitializeParams, ok bool) {
	if v, _ := meta[mcp.MetaKeyProtocolVersion].(string); v != StatelessRevision {
		return nil, false
	}
	if _, ok := meta[mcp.MetaKeyLogLevel]; ok {
		return nil, false // sets what the call may log: go-sdk's
	}
	p := &mcp.InitializeParams{ProtocolVersion: StatelessRevision, Capabilities: &mcp.ClientCapabilities{}}
	if info, ok := meta[mcp.MetaKeyClientInfo]; ok {
		if _, obj := info.(map[string]any); !obj {
			return nil, false // go-sdk refuses it
		}
		if b, err := json.Marshal(info); err == nil {
			var impl mcp.Implementation
			if json.Unmarshal(b, &impl) == nil {
				p.ClientInfo = &impl
			}
		}
	}
	caps, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	if !ok {
		return nil, false // go-sdk refuses it
	}
	// Only what go-sdk decodes without complaint.
	b, err := json.Marshal(caps)
	if err != nil || json.Unmarshal(b, p.Capabilities) != nil {
		return nil, false
	}
	return p, true
}

// metaCache keeps the last _meta object a host sent on this connection,
// decoded, leanMeta's verdict on it and what the host declared in it. A
// host of the stateless revision sends the same revision, capabilities
// and client info with every request; decoding them again, and checking
// the capabilities by a second encode and decode, was a fifth of the
// agent's time per call. The calls share the decoded map and everything
// in it, read-only: a request's _meta is what the host sent, which
// nothing of ours writes to (a copy per call was three allocations of a
// plain call's twenty).
type metaCache struct {
	last atomic.Pointer[metaEntry] // entries never change: concurrent HTTP requests (leanhttp26.go) may each store one
}

// metaEntry is one decoded _meta; never changed once made.
type metaEntry struct {
	raw  []byte
	meta mcp.Meta
	host *mcp.InitializeParams // nil: not lean
}

// maxCachedMeta bounds the _meta kept: larger ones are decoded each time.
const maxCachedMeta = 4 << 10

// decode reads a _meta object as json.Unmarshal does (ok false where it
// fails), and whether this path reads it as go-sdk would (leanMeta).
func (c *metaCache) decode(v []byte) (meta mcp.Meta, lean, ok bool) {
	if len(v) == 0 || v[0] != '{' {
		return nil, false, false
	}
	if e := c.last.Load(); e != nil && bytes.Equal(v, e.raw) {
		return e.meta, e.host != nil, true
	}
	return c.decodeNew(v)
}

// decodeNew is decode of a _meta not cached (its own function: the
// decoded map escapes, and a cached one need not pay for that).
func (c *metaCache) decodeNew(v []byte) (mcp.Meta, bool, bool) {
	var meta mcp.Meta
	if json.Unmarshal(v, &meta) != nil {
		return nil, false, false
	}
	host, lean := declaredIn(meta)
	if len(v) <= maxCachedMeta {
		c.last.Store(&metaEntry{raw: bytes.Clone(v), meta: meta, host: host})
	}
	return meta, lean, true
}

// declared is what the host declared in meta, a _meta this path read as
// lean (decode): the cached entry's when meta is its map, else read again.
func (c *metaCache) declared(meta mcp.Meta) *mcp.InitializeParams {
	if e := c.last.Load(); e != nil && sameMap(e.meta, meta) {
		return e.host
	}
	host, _ := declaredIn(meta)
	return host
}

// sameMap reports whether a and b are one map (not equal ones).
func sameMap(a, b mcp.Meta) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// declare reads what a 2026-07-28 tools/call declares (nil: its _meta is
// not one this path reads as go-sdk would) and tells the session, as the
// declarations of stateless hosts are taken (together); the host is
// named the first time. The call is counted as the lean path's.
func (lc *leanCalls) declare(req *mcp.CallToolRequest) *mcp.InitializeParams {
	leanStatelessCalls.Add(1)
	// What this request declares, not what the host's first request did
	// (go-sdk's session keeps that one).
	host := lc.metas.declared(req.Params.Meta)
	if host != nil {
		lc.s.hostDeclared(host.Capabilities, true)
		lc.s.nameStatelessHost(host)
	}
	return host
}

// stateless runs a 2026-07-28 tools/call (declare read it) on this
// goroutine and writes its response, as lean.go's calls of older hosts:
// the call is a round (inline, rounds_inline.go) that only costs more
// once it asks the host something. The call is over (cancel, lc.wg) once
// it is answered.
func (lc *leanCalls) stateless(ctx context.Context, key idKey, cancel context.CancelFunc, head []byte, req *mcp.CallToolRequest, host *mcp.InitializeParams) {
	s := lc.s
	// An extension (tasks) takes the call first, as on go-sdk's path.
	if res, taken, err := s.takeCall(ctx, req); taken {
		lc.done(key)
		lc.answerStateless(head, res, err)
		cancel()
		lc.wg.Done()
		return
	}
	lr := &leanRound{lc: lc, key: key, head: head}
	lr.finish(s.callTool(s.rounds.startInline(ctx, cancel, &lr.round, host, &s.parked, lr), req))
}

// leanRound is an inline round of the lean path with what its reply
// needs: one allocation for both.
type leanRound struct {
	round
	lc      *leanCalls
	key     idKey
	head    []byte
	watched // its forwarded call (startStatelessAsync)
}

func (lr *leanRound) reply(res mcp.Result, err error) {
	lr.lc.done(lr.key)
	lr.lc.answerStateless(lr.head, res, err)
}

// finish ends the round's call with its result (failed: the error result
// of a call that broke) where the call ended: the response, complete, or
// the request's end; then the call is over (end). A call that asked its
// host meanwhile hands its result to the request that waits for it now,
// and is over once that is answered: on a goroutine of its own, as this
// may be the upstream's reader (lean26async.go).
func (lr *leanRound) finish(r runtime.Result, failed *mcp.CallToolResult) {
	lc := lr.lc
	if !lc.s.rounds.finishInline(&lr.round) {
		if failed == nil {
			failed = toCallToolResult(r)
		}
		go lr.handBack(failed)
		return
	}
	defer lr.end()
	lc.done(lr.key)
	lc.out.Write(append(completedAnswer(lr.head, r, failed, lr.ctx.Err(), lc.s), '\n'))
}

// completedAnswer is the response to a 2026-07-28 call that ended where
// it ran (finishInline): the error of a request that ended first, as
// rounds.wait ends a cancelled one, else the complete result (failed, or
// r's, written straight from it where it can be). The stdio and HTTP lean
// paths write these bytes.
func completedAnswer(head []byte, r runtime.Result, failed *mcp.CallToolResult, ended error, s *Server) []byte {
	if ended != nil {
		return encodeError(head, ended, s)
	}
	if failed == nil {
		if b, ok := appendCompletedPlain(head, r, s.info); ok {
			return append(b, '}')
		}
		failed = toCallToolResult(r)
	}
	return encodeStateless(head, completed(failed), s)
}

// answered is finish of a call run in two halves (its result's own).
func (lr *leanRound) answered(r runtime.Result) { lr.finish(r, nil) }

func (lr *leanRound) handBack(res *mcp.CallToolResult) {
	defer lr.end()
	lr.lc.s.rounds.handBack(&lr.round, res, nil)
}

// end: the call is over; its request's context ends.
func (lr *leanRound) end() {
	lr.stop() // the call is over: nothing to end when the context does
	lr.cancel()
	lr.lc.wg.Done()
}

// done forgets the call of key: before its response, since the host may
// reuse the id then.
func (lc *leanCalls) done(key idKey) {
	lc.mu.Lock()
	delete(lc.ours, key)
	lc.mu.Unlock()
}

// answerStateless writes a 2026-07-28 call's response: res, with the
// server's serverInfo in its _meta as go-sdk annotates a result of the
// stateless revision, or err.
func (lc *leanCalls) answerStateless(head []byte, res mcp.Result, err error) {
	if err != nil {
		lc.respondError(head, err)
		return
	}
	lc.out.Write(append(encodeStateless(head, res, lc.s), '\n'))
}

// encodeStateless is the response to a 2026-07-28 call with result res,
// serverInfo added to its _meta (go-sdk's form), without a line end: the
// stdio and HTTP lean paths write the same bytes (leanhttp26.go).
func encodeStateless(head []byte, res mcp.Result, s *Server) []byte {
	m := res.GetMeta()
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
		m[mcp.MetaKeyServerInfo] = s.impl
	}
	res.SetMeta(m)
	if line, ok := appendCompleted(head, res); ok {
		return append(line, '}')
	}
	return encodeMessage(head, res, `{"resultType":"complete","content":[{"type":"text","text":"internal error: result not encodable"}],"isError":true}`, s)
}

// writeEncoded writes a response: head, v as go-sdk encodes a message
// (encodeMessage), the envelope's end.
func (lc *leanCalls) writeEncoded(head []byte, v any, failed string) {
	lc.out.Write(append(encodeMessage(head, v, failed, lc.s), '\n'))
}

// encodeMessage is head, v as go-sdk encodes a message (encoding/json, no
// HTML escaping), the envelope's end; failed in v's place when v cannot
// be encoded.
func encodeMessage(head []byte, v any, failed string, s *Server) []byte {
	b := bytes.NewBuffer(head)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.logger.Error("serve.encode", "error", err.Error())
		b.Truncate(len(head))
		b.WriteString(failed)
	} else {
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteByte('}')
	return b.Bytes()
}

// appendCompletedPlain appends the complete result a 2026-07-28 host gets
// for r (toCallToolResult with serverInfo in _meta, as appendCompleted
// writes it) straight from r, as appendPlainResult does for older hosts.
// ok is false, dst unchanged, for a rich result or without info.
func appendCompletedPlain(dst []byte, r runtime.Result, info []byte) (_ []byte, ok bool) {
	if info == nil || r.Rich != nil && (r.OK || r.Rich.IsError) {
		return dst, false
	}
	const (
		lead  = `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":`
		plain = `{"_meta":{` // how appendPlainResult starts
	)
	n := len(r.Result) + len(r.Error)
	start := len(dst)
	dst = slices.Grow(dst, len(lead)+len(info)+1+176+len(r.Kind)+len(r.Namespace)+n+n/8)
	dst = append(append(append(dst, lead...), info...), ',')
	mark := len(dst)
	out, ok := appendPlainResult(dst, r)
	if !ok {
		return dst[:start], false
	}
	// _meta's members are sorted, as encoding/json writes a map: serverInfo
	// ("io.…") before toolgen.dev's.
	return append(out[:mark], out[mark+len(plain):]...), true
}

// respondError writes err as go-sdk writes a handler's error.
func (lc *leanCalls) respondError(head []byte, err error) {
	lc.out.Write(append(encodeError(head, err, lc.s), '\n'))
}

// encodeError is the response carrying err as go-sdk writes a handler's
// error: a *jsonrpc.Error as it is, anything else as an internal error.
func encodeError(head []byte, err error, s *Server) []byte {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		rpc = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	// head ends in `"result":`: the same envelope with "error".
	h := bytes.TrimSuffix(head, []byte(`"result":`))
	return encodeMessage(append(append([]byte(nil), h...), `"error":`...), rpc, `{"code":-32603,"message":"internal error"}`, s)
}

// appendCompleted appends res as go-sdk's path writes a complete result
// for a host of the stateless revision (typedResult through encoding/json
// without HTML escaping), byte for byte, when it is a tools/call result
// of text blocks: appendTextResult's form with resultType first. That
// reflective encoding, done twice (go-sdk's MarshalJSON, then the
// encoder's compaction), was a quarter of the agent's time per call. ok
// is false, dst unchanged, for any other result.
func appendCompleted(dst []byte, res mcp.Result) (_ []byte, ok bool) {
	tr, ok := res.(typedResult)
	if !ok || tr.asks != nil || tr.resultType != "complete" {
		return dst, false
	}
	call, ok := tr.Result.(*mcp.CallToolResult)
	if !ok || call == nil {
		return dst, false
	}
	start := len(dst)
	out, ok := appendTextResult(dst, call)
	if !ok {
		return dst, false
	}
	// out[start] is the object's '{': resultType goes right after it.
	const member = `"resultType":"complete",`
	out = append(out, member...)
	copy(out[start+1+len(member):], out[start+1:len(out)-len(member)])
	copy(out[start+1:], member)
	return out, true
}
