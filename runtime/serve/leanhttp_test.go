package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// randSession answers tool "rand" with a result made from its seed
// argument: plain, error, or rich (blocks, structured content, _meta),
// the same bytes for the same seed.
type randSession struct{ *fakeSession }

func (s randSession) Call(ctx context.Context, name string, args json.RawMessage) runtime.Result {
	switch name {
	case "whoami":
		return runtime.Result{OK: true, Result: runtime.CallerID(ctx)}
	case "rand":
	default:
		return s.fakeSession.Call(ctx, name, args)
	}
	var a struct{ Seed uint64 }
	json.Unmarshal(args, &a)
	r := rand.New(rand.NewPCG(a.Seed, 7))
	res := runtime.Result{OK: r.IntN(3) > 0, Result: randomText(r), Latency: time.Duration(r.Int64N(int64(time.Minute)))}
	if !res.OK && r.IntN(3) > 0 {
		res.Error = randomText(r)
	}
	if r.IntN(2) == 0 {
		res.Kind = runtime.ToolKind(randomText(r))
	}
	if r.IntN(2) == 0 {
		res.Namespace = randomText(r)
	}
	if r.IntN(3) == 0 {
		rich := &runtime.Rich{IsError: r.IntN(4) == 0}
		for range r.IntN(3) {
			if r.IntN(3) == 0 {
				rich.Content = append(rich.Content, &mcp.ImageContent{MIMEType: "image/png", Data: []byte(randomText(r))})
			} else {
				rich.Content = append(rich.Content, &mcp.TextContent{Text: randomText(r)})
			}
		}
		if r.IntN(2) == 0 {
			rich.Structured, _ = json.Marshal(map[string]any{"t": randomText(r), "n": r.IntN(100)})
		}
		if r.IntN(2) == 0 {
			rich.Meta = map[string]any{"m": randomText(r)}
		}
		res.Rich = rich
	}
	return res
}

// rawHost speaks streamable HTTP by hand, to see go-sdk's bytes.
type rawHost struct {
	t   testing.TB
	url string
	sid string
}

// post sends body with the usual headers (changed by hdr: "" deletes)
// and returns the status, content type and body.
func (h *rawHost) post(body string, hdr map[string]string) (int, string, []byte) {
	h.t.Helper()
	headers := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
	if h.sid != "" {
		headers["Mcp-Session-Id"] = h.sid
	}
	status, got, b := postRaw(h.t, h.url, body, headers, hdr)
	if status == http.StatusOK && h.sid == "" {
		h.sid = got.Get("Mcp-Session-Id")
	}
	return status, got.Get("Content-Type"), b
}

// postRaw POSTs body to url as JSON, accepting JSON and SSE, with headers
// set, then hdr's changes ("" deletes; "Host" sets the request's host);
// it returns the status, the answer's headers and its body.
func postRaw(t testing.TB, url, body string, headers, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	for k, v := range hdr {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// message is the one JSON-RPC message of an answer, JSON or SSE.
func message(t *testing.T, ctype string, body []byte) []byte {
	t.Helper()
	if !strings.HasPrefix(ctype, "text/event-stream") {
		return body
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
			return bytes.Clone(d)
		}
	}
	t.Fatalf("no data in %q", body)
	return nil
}

// newRawHost initializes a session declaring caps (a JSON object).
func newRawHost(t testing.TB, url, caps string) *rawHost {
	h := &rawHost{t: t, url: url}
	st, _, b := h.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}}`, map[string]string{"Mcp-Protocol-Version": ""})
	if st != http.StatusOK || h.sid == "" {
		t.Fatalf("initialize: %d %s", st, b)
	}
	if st, _, b := h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); st != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", st, b)
	}
	return h
}

func startRandClients(t *testing.T, opts Options) (*Clients, string) {
	f := newFakeSession()
	cl := NewClients(func(context.Context) (OwnedSession, error) { return randSession{f}, nil }, opts)
	return cl, startClients(t, cl)
}

// A tools/call on the lean path gets byte for byte the message go-sdk's
// path sends for the same call (there as an SSE event), for random
// results and ids.
func TestLeanHTTPMatchesSDK(t *testing.T) {
	_, url := startRandClients(t, Options{})
	lean := newRawHost(t, url, `{}`)
	sdk := newRawHost(t, url, `{"sampling":{}}`) // a call may ask it: go-sdk's
	ids := []string{`7`, `"a-b"`, `-3`, `9007199254740992`, `0`, `"x y"`}
	for i := range 300 {
		id := ids[i%len(ids)]
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"rand","arguments":{"Seed":%d}}}`, id, i)
		if i%50 == 0 {
			body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"boom","arguments":null,"_meta":{"k":"v"}}}`, id)
		}
		before := leanHTTPCalls.Load()
		st, ct, got := lean.post(body, nil)
		if st != http.StatusOK || ct != "application/json" || leanHTTPCalls.Load() != before+1 {
			t.Fatalf("lean path not taken: %d %s %s", st, ct, got)
		}
		st, ct, b := sdk.post(body, nil)
		if st != http.StatusOK || leanHTTPCalls.Load() != before+1 {
			t.Fatalf("go-sdk's path not taken: %d %s %s", st, ct, b)
		}
		if want := message(t, ct, b); !bytes.Equal(got, want) {
			t.Fatalf("%s\nlean   %s\ngo-sdk %s", body, got, want)
		}
	}
}

// Whatever go-sdk refuses is refused the same way for a session the lean
// path would serve as for one it never serves.
func TestLeanHTTPKeepsRefusals(t *testing.T) {
	_, url := startRandClients(t, Options{MaxMessageBytes: 4096})
	lean := newRawHost(t, url, `{}`)
	sdk := newRawHost(t, url, `{"elicitation":{}}`)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	deep := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + strings.Repeat(`[`, 1001) + strings.Repeat(`]`, 1001) + `}}`
	cases := []struct {
		name, body string
		hdr        map[string]string
	}{
		{"content type", call, map[string]string{"Content-Type": "text/plain"}},
		{"no content type", call, map[string]string{"Content-Type": ""}},
		{"accept json only", call, map[string]string{"Accept": "application/json"}},
		{"no accept", call, map[string]string{"Accept": ""}},
		{"unknown version", call, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}},
		{"stateless version on a session", call, map[string]string{"Mcp-Protocol-Version": StatelessRevision}},
		{"last event id", call, map[string]string{"Last-Event-ID": "x_1"}},
		{"bad json", call[:len(call)-2], nil},
		{"empty", "", nil},
		{"not 2.0", strings.Replace(call, `"2.0"`, `"1.0"`, 1), nil},
		{"too large", strings.Replace(call, `{}`, `{"x":"`+strings.Repeat("a", 5000)+`"}`, 1), nil},
		{"too deep", deep, nil},
		{"stateless meta", strings.Replace(call, `"arguments":{}`, `"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}`, 1), nil},
		{"name not a string", strings.Replace(call, `"echo"`, `7`, 1), nil},
		{"unknown method", strings.Replace(call, `tools/call`, `tools/nope`, 1), nil},
		{"batch", `[` + call + `]`, nil},
	}
	for _, c := range cases {
		before := leanHTTPCalls.Load()
		ls, lct, lb := lean.post(c.body, c.hdr)
		ss, sct, sb := sdk.post(c.body, c.hdr)
		if leanHTTPCalls.Load() != before {
			t.Errorf("%s: answered on the lean path", c.name)
		}
		if ls != ss || lct != sct || !bytes.Equal(lb, sb) {
			t.Errorf("%s: lean session %d %s %q; go-sdk's %d %s %q", c.name, ls, lct, lb, ss, sct, sb)
		}
	}
	gone := &rawHost{t: t, url: url, sid: "no-such-session"}
	if st, _, b := gone.post(call, nil); st != http.StatusNotFound {
		t.Errorf("unknown session: %d %s", st, b)
	}
}

// Behind inbound auth, a session stays its token's user's, as go-sdk
// keeps it (another user's request is refused), and the call runs as
// that user.
func TestLeanHTTPSessionUser(t *testing.T) {
	f := newFakeSession()
	cl := NewClients(func(context.Context) (OwnedSession, error) { return randSession{f}, nil }, Options{})
	users := map[string]string{"alice-token": "alice", "bob-token": "bob"}
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		if u, ok := users[tok]; ok {
			return &auth.TokenInfo{UserID: u, Expiration: time.Now().Add(time.Hour)}, nil
		}
		return nil, auth.ErrInvalidToken
	}
	srv := httptest.NewServer(auth.RequireBearerToken(verify, nil)(cl.Handler()))
	t.Cleanup(func() {
		cl.closeSessions() // as Serve does at shutdown
		srv.Close()
		cl.Close()
	})
	as := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	var answers [2][]byte
	for i, caps := range []string{`{}`, `{"sampling":{}}`} {
		h := &rawHost{t: t, url: srv.URL}
		init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"raw","version":"1"}}}`
		if st, _, b := h.post(init, as("alice-token")); st != http.StatusOK {
			t.Fatalf("initialize: %d %s", st, b)
		}
		h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, as("alice-token"))
		before := leanHTTPCalls.Load()
		st, ct, b := h.post(call, as("alice-token"))
		if m := message(t, ct, b); st != http.StatusOK || !strings.Contains(string(m), `"text":"alice"`) {
			t.Errorf("caps %s: alice's call: %d %s", caps, st, b)
		}
		if lean := leanHTTPCalls.Load() != before; lean != (i == 0) {
			t.Errorf("caps %s: lean path taken: %v", caps, lean)
		}
		st, _, answers[i] = h.post(call, as("bob-token"))
		if st != http.StatusForbidden {
			t.Errorf("caps %s: bob on alice's session: %d %s", caps, st, answers[i])
		}
	}
	if !bytes.Equal(answers[0], answers[1]) {
		t.Errorf("refusals differ: %q, %q", answers[0], answers[1])
	}
}

// An id in flight on the lean path is refused as go-sdk refuses one in
// flight on its own; notifications/cancelled cancels a call on either
// path, and on the lean path so does the hang-up of the call's POST.
func TestLeanHTTPInFlightAndCancel(t *testing.T) {
	f := newFakeSession()
	cl := NewClients(func(context.Context) (OwnedSession, error) { return f, nil }, Options{})
	url := startClients(t, cl)
	cancelled := func(n int) func() bool {
		return func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.slowCancelled == n
		}
	}
	n := 0
	for _, c := range []struct {
		caps   string
		hangUp bool
	}{{`{}`, false}, {`{"sampling":{}}`, false}, {`{}`, true}} {
		h := newRawHost(t, url, c.caps)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", h.sid)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		<-f.slowStarted
		st, ct, b := h.post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, nil)
		want := `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"duplicate in-flight request ID 5"}}`
		if st != http.StatusBadRequest || ct != "application/json" || string(b) != want {
			t.Errorf("caps %s: duplicate id: %d %s %s", c.caps, st, ct, b)
		}
		if c.hangUp {
			cancel()
		} else if st, _, b := h.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`, nil); st != http.StatusAccepted {
			t.Errorf("cancelled: %d %s", st, b)
		}
		n++
		waitFor(t, "the call cancelled", cancelled(n))
		cancel()
		<-done
	}
}

// The official go-sdk client gets its results on the lean path, and the
// session's idle timer waits while a call is under way and closes it once
// idle.
func TestLeanHTTPOfficialClientAndIdle(t *testing.T) {
	f := newFakeSession()
	cl := NewClients(func(context.Context) (OwnedSession, error) { return f, nil }, Options{})
	url := startClients(t, cl)
	cs, _ := client(t, overHTTP(url))
	before := leanHTTPCalls.Load()
	for i := range 20 {
		res := call(t, cs, "echo", map[string]any{"i": i})
		if got, want := text(t, res), fmt.Sprintf(`{"i":%d}`, i); got != want {
			t.Fatalf("echo: %q, want %q", got, want)
		}
	}
	if n := leanHTTPCalls.Load() - before; n != 20 {
		t.Fatalf("%d of 20 calls on the lean path", n)
	}
	if res := call(t, cs, "fail", nil); !res.IsError || !strings.Contains(text(t, res), "always fails") {
		t.Errorf("fail: %+v", res)
	}
	const idle = 300 * time.Millisecond // from now on: the calls above never idled that long
	cl.lean.mu.Lock()
	for _, hs := range cl.lean.byID {
		hs.mu.Lock()
		hs.idle = idle
		hs.mu.Unlock()
	}
	cl.lean.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
	}()
	<-f.slowStarted
	time.Sleep(3 * idle) // longer than idle, with a POST under way
	if cl.Len() != 1 {
		t.Fatal("the session closed while a call was under way")
	}
	cancel() // the client hangs up: the call ends, and the idle time starts
	<-done
	waitFor(t, "the idle session closed", func() bool { return cl.Len() == 0 })
}

// The lean path takes a body only where go-sdk reads the same call from
// it: one request, method tools/call, the same id, name, arguments and
// _meta.
func FuzzLeanHTTPBody(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"e\u0301","arguments":null,"_meta":{"k":[1]}}}`,
		`{"id":1.0,"jsonrpc":"2.0","method":"tools/call","params":{"name":"a","name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping","params":{"name":"a"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"a"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m := readMessage(body)
		if m.call == nil {
			return
		}
		msg, err := jsonrpc.DecodeMessage(body)
		if err != nil {
			t.Fatalf("taken, go-sdk refuses it: %v", err)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.Method != "tools/call" {
			t.Fatalf("taken, go-sdk reads %#v", msg)
		}
		want, got := req.ID.Raw(), any(m.id.n)
		if m.id.str {
			got = m.id.s
		}
		if want != got {
			t.Fatalf("id %v, go-sdk's %v", got, want)
		}
		var p mcp.CallToolParamsRaw
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Fatalf("params: %v", err)
		}
		if p.Name != m.call.Name || !bytes.Equal(p.Arguments, m.call.Arguments) || !reflect.DeepEqual(p.Meta, m.call.Meta) {
			t.Fatalf("read %+v, go-sdk %+v", m.call, p)
		}
		if _, ok := p.Meta["progressToken"]; ok {
			t.Fatal("took a call with a progress token")
		}
		if enc := httpHead(m); !bytes.HasPrefix(enc, []byte(`{"jsonrpc":"2.0","id":`)) {
			t.Fatalf("head %s", enc)
		}
	})
}

// BenchmarkHTTPCall is one tools/call POST to a client session over
// loopback, on the lean path and (a host that declared sampling) on
// go-sdk's, client included.
func BenchmarkHTTPCall(b *testing.B) {
	f := newFakeSession()
	cl := NewClients(func(context.Context) (OwnedSession, error) { return f, nil }, Options{})
	srv := httptest.NewServer(cl.Handler())
	b.Cleanup(func() {
		cl.closeSessions()
		srv.Close()
		cl.Close()
	})
	for _, c := range []struct{ name, caps string }{{"lean", `{}`}, {"go-sdk", `{"sampling":{}}`}} {
		h := newRawHost(b, srv.URL, c.caps)
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world, a line of the usual length"}}}`)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				req.Header.Set("Mcp-Session-Id", h.sid)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}

// A call that may send its host something before its result (a log
// level set, a progress token) stays on go-sdk's path, where that goes on
// the request's own SSE stream.
func TestLeanHTTPLeavesTalkativeCalls(t *testing.T) {
	_, url := startRandClients(t, Options{})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	progress := strings.Replace(call, `"arguments":{}`, `"arguments":{},"_meta":{"progressToken":"p"}`, 1)
	h := newRawHost(t, url, `{}`)
	for _, c := range []struct {
		name, body string
		lean       bool
	}{{"plain", call, true}, {"progress token", progress, false}, {"after setLevel", call, false}} {
		if c.name == "after setLevel" {
			if st, _, b := h.post(`{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"info"}}`, nil); st != http.StatusOK {
				t.Fatalf("setLevel: %d %s", st, b)
			}
		}
		before := leanHTTPCalls.Load()
		st, ct, b := h.post(c.body, nil)
		if st != http.StatusOK || !strings.Contains(string(message(t, ct, b)), `"result"`) {
			t.Errorf("%s: %d %s", c.name, st, b)
		}
		if lean := leanHTTPCalls.Load() != before; lean != c.lean {
			t.Errorf("%s: lean path %v, want %v", c.name, lean, c.lean)
		}
	}
}
