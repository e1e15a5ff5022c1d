package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
	"github.com/toolgen-dev/toolgen/runtime"
)

// leanHTTP answers a tools/call POSTed to a client's session (the
// revisions with a handshake) without go-sdk's streamable machinery:
// go-sdk decoded each body several times, each into a fresh 32 KiB
// buffer, queued the request for its session's reader, framed the answer
// as SSE and hung the POST on a stream until the handler's goroutine
// delivered it; at 50 sessions that and the GC it caused were most of the
// agent's CPU. Here the body is read once, the call runs on the request's
// goroutine through the same handler (Server.callTool, with the session,
// its caller and the token's identity) and the answer is one
// application/json body, encoded as the stdio lean path encodes it (a
// client must accept JSON as well as SSE).
//
// Only a POST that go-sdk would take, of one tools/call read exactly as
// go-sdk reads it (lean.go's rules), for a live session whose call cannot
// ask its host anything (no sampling or elicitation declared, no log level
// set, no progress token) and that no extension may take, is answered
// here; anything else, and every refusal, is go-sdk's. The session's idle
// timer is kept here (go-sdk's cannot be refreshed from outside), for
// both paths.
type leanHTTP struct {
	max  int64         // the body limit go-sdk applies (MaxRequestBodyBytes)
	idle time.Duration // a session's idle timeout

	mu   sync.Mutex
	byID map[string]*httpSession
}

// leanHTTPCalls counts the calls answered on this path (tests tell by it
// that the path was taken).
var leanHTTPCalls atomic.Int64

// httpSession is one client's MCP session as this path sees it.
type httpSession struct {
	srv    *Server
	ss     *mcp.ServerSession
	userID string             // the token's user at initialize; later requests must match
	ctx    context.Context    // ended with the session: its calls are cancelled
	end    context.CancelFunc //
	idle   time.Duration

	mu    sync.Mutex
	refs  int         // POSTs under way: the idle timer waits
	timer *time.Timer // nil once the session ended
	ours  map[idKey]context.CancelFunc
	sdk   map[idKey]int // calls in flight in go-sdk
}

func newLeanHTTP(maxBody int, idle time.Duration) *leanHTTP {
	m := int64(maxBody)
	if m == 0 {
		m = mcp.DefaultMaxRequestBodyBytes
	}
	return &leanHTTP{max: m, idle: idle, byID: map[string]*httpSession{}}
}

// add notes the session go-sdk just started for srv and starts its idle
// timer; the session is forgotten when it ends.
func (l *leanHTTP) add(ss *mcp.ServerSession, srv *Server, userID string) {
	id := ss.ID()
	if id == "" {
		return
	}
	ctx, end := context.WithCancel(context.Background())
	hs := &httpSession{srv: srv, ss: ss, userID: userID, ctx: ctx, end: end, idle: l.idle,
		ours: map[idKey]context.CancelFunc{}, sdk: map[idKey]int{}}
	if l.idle > 0 {
		hs.timer = time.AfterFunc(l.idle, func() { ss.Close() })
	}
	l.mu.Lock()
	l.byID[id] = hs
	l.mu.Unlock()
	go func() {
		ss.Wait()
		l.mu.Lock()
		if l.byID[id] == hs {
			delete(l.byID, id)
		}
		l.mu.Unlock()
		hs.mu.Lock()
		if hs.timer != nil {
			hs.timer.Stop()
			hs.timer = nil
		}
		hs.mu.Unlock()
		end()
	}()
}

func (l *leanHTTP) session(id string) *httpSession {
	l.mu.Lock()
	hs := l.byID[id]
	l.mu.Unlock()
	return hs
}

// startPOST and endPOST hold the idle timer while a POST is under way,
// as go-sdk's SessionTimeout does.
func (hs *httpSession) startPOST() {
	hs.mu.Lock()
	if hs.timer != nil && hs.refs == 0 {
		hs.timer.Stop()
	}
	hs.refs++
	hs.mu.Unlock()
}

func (hs *httpSession) endPOST() {
	hs.mu.Lock()
	if hs.refs--; hs.refs == 0 && hs.timer != nil {
		hs.timer.Reset(hs.idle)
	}
	hs.mu.Unlock()
}

// serve handles a POST that names a session; next is go-sdk's handler.
func (l *leanHTTP) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	hs := l.session(r.Header.Get("Mcp-Session-Id"))
	pv := r.Header.Get("Mcp-Protocol-Version")
	if hs == nil || !sdkTakes(r, pv) || !hs.sameUser(r) {
		next.ServeHTTP(w, r) // go-sdk answers (404, 403, 400, 415): no idle refresh
		return
	}
	hs.startPOST()
	defer hs.endPOST()
	if pv >= StatelessRevision || len(r.Header.Values("Last-Event-ID")) > 0 || r.ContentLength > l.max {
		next.ServeHTTP(w, r)
		return
	}
	buf := readBody(r, l.max)
	if buf == nil {
		next.ServeHTTP(w, r)
		return
	}
	body := buf.Bytes()
	m := readMessage(body)
	if m.call != nil {
		if req := hs.lean(r, m); req != nil {
			bodies.Put(buf) // what the call keeps was copied
			hs.run(w, r, m, req)
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // buf is go-sdk's now
	hs.toSDK(w, r, m, next)
}

// bodies are the buffers POST bodies are read into.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readBody reads r's body, up to max bytes, into a buffer of bodies; nil
// when it is longer or unreadable, and then r's body reads as before, for
// go-sdk to refuse.
func readBody(r *http.Request, max int64) *bytes.Buffer {
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	_, err := buf.ReadFrom(io.LimitReader(r.Body, max+1))
	if err != nil || int64(buf.Len()) > max {
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(bytes.Clone(buf.Bytes())), rest), rest}
		bodies.Put(buf)
		return nil
	}
	return buf
}

// sdkTakes reports whether go-sdk's stateful handler would go past its
// header checks for this POST (and so reach the session's idle timer).
func sdkTakes(r *http.Request, pv string) bool {
	if pv != "" && !slices.Contains(ProtocolVersions, pv) && pv < StatelessRevision {
		return false
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return false
		}
	}
	return acceptsBoth(r.Header.Values("Accept"))
}

// acceptsBoth is go-sdk's test of a POST's Accept: JSON and SSE.
func acceptsBoth(values []string) bool {
	jsonOK, streamOK := false, false
	for _, v := range values {
		for raw := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// sameUser is go-sdk's guard against a session taken over by another
// token's user.
func (hs *httpSession) sameUser(r *http.Request) bool {
	if hs.userID == "" {
		return true
	}
	ti := auth.TokenInfoFromContext(r.Context())
	return ti != nil && ti.UserID == hs.userID
}

// postBody is what this path read of a POST body: a tools/call it answers
// (call), or for go-sdk the id of a request (exact) or the request id a
// notifications/cancelled names.
type postBody struct {
	call      *mcp.CallToolParamsRaw
	id        idKey
	idTok     []byte
	exact     bool // id is an exact id of a request
	cancelled []byte
}

// readMessage reads body as go-sdk would one JSON-RPC message: a tools/call
// whose params lean.go's rules read exactly, or what go-sdk must see.
func readMessage(body []byte) postBody {
	var m postBody
	id, method, params := readEnvelope(body)
	if method == nil || jsonrpcline.IsNull(method) {
		return m
	}
	if jsonrpcline.IsNull(id) {
		if string(method) == `"notifications/cancelled"` && len(params) > 0 && params[0] == '{' {
			jsonrpcline.Pick(params, []string{"requestId"}, &m.cancelled)
		}
		return m
	}
	m.id, m.exact = leanID(id)
	if !m.exact {
		m.id, m.exact = sdkID(id)
		return m
	}
	m.idTok = bytes.Clone(id)
	if string(method) == `"tools/call"` {
		m.call = callParams(params)
	}
	return m
}

// readEnvelope is the id, method and params of body, one JSON-RPC
// message that go-sdk reads as this does; all nil for anything else. Both
// lean paths call it: once in the binary.
//
//go:noinline
func readEnvelope(body []byte) (id, method, params []byte) {
	if len(body) == 0 || body[0] != '{' || body[len(body)-1] != '}' || deeperThan(body, httpMaxDepth) ||
		!json.Valid(body) || checkEnvelope(body) != nil {
		return nil, nil, nil
	}
	jsonrpcline.Pick(body, requestMembers, &id, &method, &params)
	return id, method, params
}

// httpMaxDepth is go-sdk's nesting limit for a body (internal/json).
const httpMaxDepth = 1000

// callParams reads the params of a tools/call as go-sdk reads them, or nil
// when this does not read them exactly as go-sdk would or the call may
// send its host something on the request's stream (a progress token) or
// belongs to the stateless revision.
func callParams(params []byte) *mcp.CallToolParamsRaw {
	p, ok := readToolCall(params, func(v []byte) (mcp.Meta, bool) {
		var m mcp.Meta
		ok := v[0] == '{' && json.Unmarshal(v, &m) == nil
		return m, ok
	})
	if !ok {
		return nil
	}
	if _, v := p.Meta[mcp.MetaKeyProtocolVersion]; v {
		return nil // go-sdk refuses it on a session
	}
	if _, t := p.Meta["progressToken"]; t {
		return nil // progress goes on the request's SSE stream: go-sdk's
	}
	return p
}

// quiet reports whether a call of this session cannot send its host
// anything before its result: go-sdk would put that on the POST's SSE
// stream, which this path does not open.
func (hs *httpSession) quiet() bool {
	ip := hs.ss.InitializeParams()
	if ip == nil {
		return false // go-sdk refuses calls before initialize
	}
	if c := ip.Capabilities; c != nil && (c.Sampling != nil || c.Elicitation != nil) {
		return false
	}
	return !hs.srv.hostLogs.Load()
}

// lean is the request this path runs for m's tools/call, or nil for
// go-sdk's path.
func (hs *httpSession) lean(r *http.Request, m postBody) *mcp.CallToolRequest {
	if !hs.quiet() || hs.ctx.Err() != nil {
		return nil
	}
	req := &mcp.CallToolRequest{Session: hs.ss, Params: m.call,
		Extra: &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}}
	if hs.srv.mayTake(req) {
		return nil // an extension (tasks) may take it: go-sdk's path offers it
	}
	return req
}

// run answers a tools/call as go-sdk's path would, in one JSON body.
func (hs *httpSession) run(w http.ResponseWriter, r *http.Request, m postBody, req *mcp.CallToolRequest) {
	ctx, cancel := context.WithCancel(r.Context()) // the client's hang-up cancels the call
	hs.mu.Lock()
	if _, busy := hs.ours[m.id]; busy || hs.sdk[m.id] > 0 {
		hs.mu.Unlock()
		cancel()
		refuseInFlight(w, m.id)
		return
	}
	hs.ours[m.id] = cancel
	hs.mu.Unlock()
	stop := context.AfterFunc(hs.ctx, cancel) // and so does the session's end
	leanHTTPCalls.Add(1)
	res, failed := hs.srv.callTool(ctx, req)
	stop()
	hs.mu.Lock()
	delete(hs.ours, m.id)
	hs.mu.Unlock()
	cancel()
	writeJSON(w, http.StatusOK, encodeCall(httpHead(m), res, failed, hs.srv)) // leanhttp26.go
}

// toSDK hands a POST to go-sdk, after cancelling a call of ours that a
// notifications/cancelled names; a request reusing the id of a call of
// ours in flight is refused as go-sdk refuses an id in flight, and one
// go-sdk runs is noted so that a call of ours cannot reuse its id.
func (hs *httpSession) toSDK(w http.ResponseWriter, r *http.Request, m postBody, next http.Handler) {
	if !jsonrpcline.IsNull(m.cancelled) {
		if key, ok := sdkID(m.cancelled); ok {
			hs.mu.Lock()
			cancel := hs.ours[key]
			hs.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	}
	if !m.exact {
		next.ServeHTTP(w, r)
		return
	}
	hs.mu.Lock()
	if _, busy := hs.ours[m.id]; busy {
		hs.mu.Unlock()
		refuseInFlight(w, m.id)
		return
	}
	hs.sdk[m.id]++
	hs.mu.Unlock()
	defer func() {
		hs.mu.Lock()
		if n := hs.sdk[m.id]; n > 1 {
			hs.sdk[m.id] = n - 1
		} else {
			delete(hs.sdk, m.id)
		}
		hs.mu.Unlock()
	}()
	next.ServeHTTP(w, r)
}

// refuseInFlight answers as go-sdk answers a request whose id is in flight
// on its session.
func refuseInFlight(w http.ResponseWriter, key idKey) {
	var raw, v any = key.n, float64(key.n) // MakeID takes a number as JSON decodes it
	if key.str {
		raw, v = key.s, key.s
	}
	id, _ := jsonrpc.MakeID(v)
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("duplicate in-flight request ID %v", raw)}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	if err == nil {
		w.Write(b)
	}
}

// httpHead is the response's start, up to its result.
func httpHead(m postBody) []byte {
	head := make([]byte, 0, 48+len(m.idTok))
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	if m.id.str {
		head = append(head, m.idTok...) // printable ASCII, no escapes: as go-sdk writes it
	} else {
		head = strconv.AppendInt(head, m.id.n, 10)
	}
	return append(head, `,"result":`...)
}

// encodeCall is the whole response to a call, as go-sdk encodes the result
// Server.handle makes of it (lean.go's forms).
func encodeCall(head []byte, r runtime.Result, failed *mcp.CallToolResult, s *Server) []byte {
	if failed == nil {
		if b, ok := appendPlainResult(head, r); ok {
			return append(b, '}')
		}
		failed = toCallToolResult(r)
	}
	if b, ok := appendTextResult(head, failed); ok {
		return append(b, '}')
	}
	b := bytes.NewBuffer(head)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(failed); err != nil {
		s.logger.Error("serve.encode", "error", err.Error())
		b.Truncate(len(head))
		b.WriteString(`{"content":[{"type":"text","text":"internal error: result not encodable"}],"isError":true}`)
	} else {
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteByte('}')
	return b.Bytes()
}
