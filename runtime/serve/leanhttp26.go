package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
)

// leanHTTP26 answers a 2026-07-28 host's tools/call POSTed to serve
// --http without go-sdk's stateless handler, which connected a go-sdk
// ServerSession to the shared server for every request, decoded the body
// several times, queued the call for that session's reader and framed the
// answer as SSE: a 2026 host's call cost twice a 2025 host's (leanhttp.go).
// Here the body is read once, the call runs on the request's goroutine
// through the shared server as go-sdk's path runs it (the host's declared
// capabilities and client info, the token's identity, an inline round as
// the stdio lean path's, lean26.go) and the answer is one application/json
// body, the bytes the stdio lean path writes for the same result.
//
// Only a POST go-sdk would take, of one tools/call whose headers and
// params this reads exactly as go-sdk reads them, from a host that
// declared no sampling or elicitation (those rounds stay go-sdk's), with
// no progress token and that no extension may take, is answered here;
// anything else, and every refusal, is go-sdk's, unchanged.
type leanHTTP26 struct {
	c     *Clients
	max   int64     // the body limit go-sdk applies (MaxRequestBodyBytes)
	metas metaCache // the last _meta read: a host sends the same with every call

	named atomic.Pointer[mcp.InitializeParams] // the host declared last (lean26.go's declare)
	info  atomic.Pointer[encodedInfo]          // the shared server's serverInfo, encoded
}

// encodedInfo is a server's serverInfo as a result's _meta carries it.
type encodedInfo struct {
	s *Server
	b []byte
}

// leanHTTP26Calls counts the calls answered on this path (tests tell by
// it that the path was taken).
var leanHTTP26Calls atomic.Int64

func newLeanHTTP26(c *Clients, maxBody int) *leanHTTP26 {
	m := int64(maxBody)
	if m == 0 {
		m = mcp.DefaultMaxRequestBodyBytes
	}
	return &leanHTTP26{c: c, max: m}
}

// handler puts this path in front of next, go-sdk's stateless handler.
func (l *leanHTTP26) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { l.serve(w, r, next) })
}

func (l *leanHTTP26) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !sdkTakes26(r) || r.ContentLength > l.max {
		next.ServeHTTP(w, r)
		return
	}
	s := l.c.sharedServer(r)
	if s == nil {
		next.ServeHTTP(w, r) // go-sdk answers 400
		return
	}
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	_, err := buf.ReadFrom(io.LimitReader(r.Body, l.max+1))
	body := buf.Bytes()
	if err != nil || int64(len(body)) > l.max {
		rest := r.Body // go-sdk reads it all again and refuses it
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(bytes.Clone(body)), rest), rest}
		bodies.Put(buf)
		next.ServeHTTP(w, r)
		return
	}
	req, host, head := l.read(r, s, body)
	if req == nil {
		r.Body = io.NopCloser(bytes.NewReader(body)) // buf is go-sdk's now
		next.ServeHTTP(w, r)
		return
	}
	bodies.Put(buf) // what the call keeps was copied
	l.run(w, r, s, req, host, head)
}

// sdkTakes26 reports whether go-sdk's stateless handler would take this
// POST's headers for a tools/call of the stateless revision: the revision
// exactly, JSON, an Accept of JSON and SSE, the standard headers present
// (the name is checked against the body later), no Last-Event-ID, and a
// Host its DNS-rebinding check lets through. Mcp-Param-* headers are
// go-sdk's to check.
func sdkTakes26(r *http.Request) bool {
	h := r.Header
	if h.Get("Mcp-Protocol-Version") != StatelessRevision || h.Get("Mcp-Method") != "tools/call" ||
		h.Get("Mcp-Name") == "" || len(h.Values("Last-Event-ID")) > 0 {
		return false
	}
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	if !acceptsBoth(h.Values("Accept")) {
		return false
	}
	for k := range h {
		if len(k) > len("Mcp-Param-") && strings.EqualFold(k[:len("Mcp-Param-")], "Mcp-Param-") {
			return false
		}
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local == nil || !sdkLoopback(local.String()) || sdkLoopback(r.Host)
}

// sdkLoopback is go-sdk's own test of a loopback address (its
// DNS-rebinding guard, narrower than rebindingGuard's isLoopback):
// "localhost" in lower case or a loopback IP, with or without a port.
func sdkLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// sharedServer is the shared server of the stateless hosts, opened as
// go-sdk's handler would open it (sharedFor); nil when it cannot open.
func (c *Clients) sharedServer(r *http.Request) *Server {
	if c.sharedFor(r) == nil {
		return nil
	}
	c.sharedMu.Lock()
	defer c.sharedMu.Unlock()
	return c.shared
}

// read is the request this path runs for body, with what its host
// declared and the response's head, or nil for go-sdk's path.
func (l *leanHTTP26) read(r *http.Request, s *Server, body []byte) (*mcp.CallToolRequest, *mcp.InitializeParams, []byte) {
	if len(body) == 0 || body[0] != '{' || body[len(body)-1] != '}' || deeperThan(body, httpMaxDepth) ||
		!json.Valid(body) || checkEnvelope(body) != nil {
		return nil, nil, nil
	}
	var id, method, params []byte
	jsonrpcline.Pick(body, requestMembers, &id, &method, &params)
	if string(method) != `"tools/call"` || jsonrpcline.IsNull(id) {
		return nil, nil, nil
	}
	key, exact := leanID(id)
	if !exact {
		return nil, nil, nil
	}
	readable := false
	p, ok := readToolCall(params, func(v []byte) (m mcp.Meta, ok bool) {
		m, readable, ok = l.metas.decode(v)
		return m, ok
	})
	if !ok || !readable || p.Name != r.Header.Get("Mcp-Name") {
		return nil, nil, nil // go-sdk refuses it, or reads it otherwise
	}
	if _, t := p.Meta["progressToken"]; t {
		return nil, nil, nil // progress goes on the request's SSE stream: go-sdk's
	}
	host := l.metas.declared(p.Meta)
	if host == nil || mayAsk(host.Capabilities) {
		return nil, nil, nil
	}
	req := &mcp.CallToolRequest{Params: p,
		Extra: &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}}
	if s.mayTake(req) {
		return nil, nil, nil // an extension (tasks) may take it: go-sdk's path offers it
	}
	return req, host, httpHead(postBody{id: key, idTok: id})
}

// mayAsk reports whether a call may ask a host that declared caps to
// sample or elicit: that round is go-sdk's path's (the retry brings its
// answers there).
func mayAsk(caps *mcp.ClientCapabilities) bool {
	return caps == nil || caps.Sampling != nil || caps.Elicitation != nil
}

// hasRoots reports whether the host declared roots (go-sdk's client
// does by default), as roundCaller reads it.
func hasRoots(caps *mcp.ClientCapabilities) bool {
	return caps.RootsV2 != nil || caps.Roots.ListChanged
}

// run runs the call and answers it. A host that can be asked nothing gets
// the call on this goroutine in an inline round, as the stdio lean path
// runs it: the round matters only when a tool requires a capability the
// host did not declare, and then its waiter answers the request (-32021)
// while the call winds down. A host that declared roots may be asked for
// them in a round answered while the call waits: that call runs as on
// go-sdk's path (callInRounds), on a worker.
func (l *leanHTTP26) run(w http.ResponseWriter, r *http.Request, s *Server, req *mcp.CallToolRequest, host *mcp.InitializeParams, head []byte) {
	s.hostDeclared(host.Capabilities, true) // as perRequestHost on go-sdk's path
	if l.named.Swap(host) != host {
		s.nameStatelessHost(host)
	}
	leanHTTP26Calls.Add(1)
	hr := &httpRound{w: w, s: s, head: head}
	if hasRoots(host.Capabilities) {
		rd := s.rounds.start(func(ctx context.Context) (mcp.Result, error) { return s.handle(ctx, req) }, nil, host, &s.parked)
		hr.reply(s.rounds.wait(r.Context(), rd))
		return
	}
	ctx, cancel := context.WithCancel(r.Context()) // the host's hang-up cancels the call
	defer cancel()
	res, failed := s.callTool(s.rounds.startInline(ctx, cancel, &hr.round, host, &s.parked, hr), req)
	if !s.rounds.finishInline(&hr.round) {
		if failed == nil {
			failed = toCallToolResult(res)
		}
		s.rounds.handBack(&hr.round, failed, nil) // returns once the waiter has answered
		return
	}
	if err := ctx.Err(); err != nil {
		hr.reply(nil, err) // as rounds.wait ends a cancelled request
		return
	}
	if failed == nil {
		if b, ok := appendCompletedPlain(head, res, l.serverInfo(s)); ok {
			writeJSON(w, http.StatusOK, append(b, '}'))
			return
		}
		failed = toCallToolResult(res)
	}
	hr.reply(completed(failed), nil)
}

// serverInfo is s's serverInfo encoded once (lean26.go's serverInfo).
func (l *leanHTTP26) serverInfo(s *Server) []byte {
	if e := l.info.Load(); e != nil && e.s == s {
		return e.b
	}
	b, err := json.Marshal(s.impl)
	if err != nil {
		return nil
	}
	l.info.Store(&encodedInfo{s: s, b: b})
	return b
}

// httpRound is the inline round of a call on this path with what its
// answer needs: one allocation for both.
type httpRound struct {
	round
	w    http.ResponseWriter
	s    *Server
	head []byte
}

// reply answers the request as go-sdk's path does: a result, or an error
// with the HTTP status SEP-2575 gives its code.
func (hr *httpRound) reply(res mcp.Result, err error) {
	if err != nil {
		writeJSON(hr.w, errorStatus(err), encodeError(hr.head, err, hr.s))
		return
	}
	writeJSON(hr.w, http.StatusOK, encodeStateless(hr.head, res, hr.s))
}

// errorStatus is the HTTP status go-sdk gives a 2026-07-28 request's
// error (its extractErrorStatus); 200 for the rest, which go-sdk sends as
// an event of the request's stream.
func errorStatus(err error) int {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return http.StatusOK
	}
	switch rpc.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// writeJSON writes one JSON-RPC message with the headers go-sdk sets on a
// JSON answer.
func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	if status != http.StatusOK {
		w.WriteHeader(status)
	}
	w.Write(msg)
}
