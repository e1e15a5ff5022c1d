package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
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
// through the shared server as the stdio lean path runs it (the host's
// declared capabilities and client info, the token's identity, an inline
// round) and the answer is one application/json body, the bytes the stdio
// lean path (lean26.go) writes for the same result.
//
// Only a POST go-sdk would take, of one tools/call whose headers and
// params this reads exactly as go-sdk reads them, from a host that
// declared no sampling or elicitation (those rounds stay go-sdk's), with
// no progress token and that no extension may take, is answered here;
// anything else, and every refusal, is go-sdk's, unchanged.
type leanHTTP26 struct {
	_     [0]func() // not comparable: no equality function in the binary
	c     *Clients
	next  http.Handler // go-sdk's stateless handler
	max   int64        // the body limit go-sdk applies (MaxRequestBodyBytes)
	metas metaCache    // the last _meta read: a host sends the same with every call
}

// leanHTTP26Calls counts the calls answered on this path (tests tell by
// it that the path was taken).
var leanHTTP26Calls atomic.Int64

func (l *leanHTTP26) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var s *Server
	if sdkTakes26(r) && r.ContentLength <= l.max {
		s = l.c.sharedServer(r) // nil: go-sdk answers (400, or the refusal of a closed server)
	}
	var buf *bytes.Buffer
	if s != nil {
		buf = readBody(r, l.max)
	}
	if buf == nil {
		l.next.ServeHTTP(w, r) // go-sdk answers, or refuses the body
		return
	}
	body := buf.Bytes()
	req, host, head := l.read(r, s, body)
	if req == nil {
		r.Body = io.NopCloser(bytes.NewReader(body)) // buf is go-sdk's now
		l.next.ServeHTTP(w, r)
		return
	}
	bodies.Put(buf) // what the call keeps was copied
	l.run(w, r, s, req, host, head)
}

// sdkTakes26 reports whether go-sdk's stateless handler would take this
// POST's headers for a tools/call of the stateless revision: the revision
// exactly, JSON, an Accept of JSON and SSE, the standard headers present
// (the name is checked against the body later), no Last-Event-ID, and a
// Host its DNS-rebinding check lets through. Mcp-Param-* headers need no
// look: go-sdk checks them against the x-mcp-header annotations of the
// tools on its own server, and the only one there is listChanged, which
// has none (toolList answers tools/list); it takes such a call as is.
func sdkTakes26(r *http.Request) bool {
	h := r.Header
	if h.Get("Mcp-Protocol-Version") != StatelessRevision || h.Get("Mcp-Method") != "tools/call" ||
		h.Get("Mcp-Name") == "" || len(h.Values("Last-Event-ID")) > 0 {
		return false
	}
	if !sdkTakes(r, StatelessRevision) { // JSON, an Accept of JSON and SSE
		return false
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

// read is the request this path runs for body, with what its host
// declared and the response's head, or nil for go-sdk's path.
func (l *leanHTTP26) read(r *http.Request, s *Server, body []byte) (*mcp.CallToolRequest, *mcp.InitializeParams, []byte) {
	id, method, params := readEnvelope(body)
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
// sample or elicit: such a host's calls stay on go-sdk's path, where
// those rounds run on a worker.
func mayAsk(caps *mcp.ClientCapabilities) bool {
	return caps == nil || caps.Sampling != nil || caps.Elicitation != nil
}

// run runs the call on this goroutine in an inline round, as the stdio
// lean path runs a 2026-07-28 call (rounds_inline.go): a worker's round,
// as go-sdk's path runs it, cost a goroutine hand-off and two wake-ups
// per call, a tenth of the agent's CPU. Only a call that asks its host
// something (its roots, which go-sdk's client declares by default) or
// lacks a capability a tool requires gets a goroutine, which answers the
// request (reply) while the call waits for the host's retry.
func (l *leanHTTP26) run(w http.ResponseWriter, r *http.Request, s *Server, req *mcp.CallToolRequest, host *mcp.InitializeParams, head []byte) {
	s.hostDeclared(host.Capabilities, true) // as perRequestHost on go-sdk's path
	s.nameStatelessHost(host)
	leanHTTP26Calls.Add(1)
	// The host's hang-up cancels the call, unless it is parked for the
	// host's answers by then: the retry comes as another request.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	hr := &httpRound{w: w, s: s, head: head}
	stop := context.AfterFunc(r.Context(), func() {
		hr.mu.Lock()
		parked := hr.detached
		hr.mu.Unlock()
		if !parked {
			cancel()
		}
	})
	defer stop()
	res, failed := s.callTool(s.rounds.startInline(ctx, cancel, &hr.round, host, &s.parked, hr), req)
	if !s.rounds.finishInline(&hr.round) {
		if failed == nil {
			failed = toCallToolResult(res)
		}
		s.rounds.handBack(&hr.round, failed, nil) // to the retry; returns once reply has answered
		return
	}
	writeJSON(w, http.StatusOK, completedAnswer(head, res, failed, ctx.Err(), s))
}

// httpRound is the inline round of a call on this path with what its
// answer needs: one allocation for both.
type httpRound struct {
	round
	w    http.ResponseWriter
	s    *Server
	head []byte
}

// reply answers the request of a call that asked its host something
// (roundReply): the input-required result, or the error go-sdk's path
// sends, -32021 with HTTP 400 (SEP-2575, its extractErrorStatus). The call
// goes on past this answer, holding this request's handler: the answer is
// sent whole now, and the host is told to send its retry on another
// connection.
func (hr *httpRound) reply(res mcp.Result, err error) {
	status, msg := http.StatusOK, []byte(nil)
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		status, msg = http.StatusBadRequest, encodeError(hr.head, err, hr.s)
	case err != nil:
		msg = encodeError(hr.head, err, hr.s) // the host gave up
	default:
		msg = encodeStateless(hr.head, res, hr.s)
	}
	h := hr.w.Header()
	h.Set("Content-Length", strconv.Itoa(len(msg)))
	h.Set("Connection", "close")
	writeJSON(hr.w, status, msg)
	http.NewResponseController(hr.w).Flush()
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
