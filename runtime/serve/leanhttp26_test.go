package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// host26 speaks streamable HTTP as a 2026-07-28 host, by hand.
type host26 struct {
	t   testing.TB
	url string
}

// callBody is a 2026-07-28 tools/call of tool with args, its host
// declaring caps.
func callBody(id, tool, args, caps string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`, id, tool, args, caps)
}

// post sends body with a 2026-07-28 host's headers for a call of tool
// (changed by hdr: "" deletes; "Host" sets the request's host) and
// returns the status, content type and body.
func (h *host26) post(body, tool string, hdr map[string]string) (int, string, []byte) {
	h.t.Helper()
	status, got, b := postRaw(h.t, h.url, body, map[string]string{
		"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": "tools/call", "Mcp-Name": tool,
	}, hdr)
	return status, got.Get("Content-Type"), b
}

// randAsking is the rand session with the asking session's tools.
type randAsking struct{ *fakeSession }

func (s randAsking) Tools() []runtime.ToolInfo { return askingSession{s.fakeSession}.Tools() }

func (s randAsking) Call(ctx context.Context, name string, args json.RawMessage) runtime.Result {
	switch name {
	case "greet", "needs_model":
		return askingSession{s.fakeSession}.Call(ctx, name, args)
	case "roots": // asks the host for its roots (runtime.ListRoots)
		res, err := runtime.ListRoots(ctx)
		if err != nil {
			return runtime.Result{Error: err.Error()}
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return runtime.Result{OK: true, Result: strings.Join(uris, " ")}
	}
	return randSession{s.fakeSession}.Call(ctx, name, args)
}

// startRand26 serves the rand session to 2026-07-28 hosts twice: with
// the lean path, and without it (go-sdk's stateless handler alone).
func startRand26(t *testing.T, opts Options) (lean, sdk *host26) {
	f := newFakeSession()
	open := func(context.Context) (OwnedSession, error) { return randAsking{f}, nil }
	on := NewClients(open, opts)
	off := NewClients(open, opts)
	off.noLean26 = true
	return &host26{t: t, url: startClients(t, on)}, &host26{t: t, url: startClients(t, off)}
}

// stdioLines is a stdio connection to s whose responses are read as the
// bytes the server wrote.
type stdioLines struct {
	w io.Writer
	r *bufio.Reader
}

func startStdioLines(t *testing.T, s *Server) *stdioLines {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan struct{})
	go func() { s.ServeIO(context.Background(), sr, sw); sw.Close(); close(done) }()
	t.Cleanup(func() { cw.Close(); <-done })
	return &stdioLines{w: cw, r: bufio.NewReaderSize(cr, 1<<20)}
}

// roundTrip sends one request line and returns its response line,
// without the line end.
func (c *stdioLines) roundTrip(t *testing.T, line string) []byte {
	t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		t.Fatal(err)
	}
	for {
		b, err := c.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("stdio: %v", err)
		}
		if bytes.Contains(b, []byte(`"id":`)) {
			return bytes.TrimSuffix(b, []byte("\n"))
		}
	}
}

// A 2026-07-28 host's tools/call over HTTP takes the lean path and gets,
// byte for byte, the message go-sdk's stateless handler sends for the
// same call (there as an SSE event), and the line the stdio lean path
// writes for it, for random results and ids.
func TestLeanHTTP26MatchesSDKAndStdio(t *testing.T) {
	lean, sdk := startRand26(t, Options{})
	s := New(randSession{newFakeSession()}, Options{Name: "rand-stdio"})
	defer s.Close()
	stdio := startStdioLines(t, s)
	// The server's name is in every answer: the stdio server's differs.
	clientsName := []byte(`"name":"` + newFakeSession().Agent() + `"`)
	ids := []string{`7`, `"a-b"`, `-3`, `9007199254740992`, `0`, `"x y"`}
	for i := range 200 {
		id := ids[i%len(ids)]
		caps := `{}`
		if i%3 == 1 {
			caps = `{"roots":{"listChanged":true}}` // go-sdk's client declares roots by default
		}
		body := callBody(id, "rand", fmt.Sprintf(`{"Seed":%d}`, i), caps)
		tool := "rand"
		if i%40 == 0 {
			body, tool = callBody(id, "boom", `null`, caps), "boom"
		}
		before := leanHTTP26Calls.Load()
		st, ct, got := lean.post(body, tool, nil)
		if st != http.StatusOK || ct != "application/json" || leanHTTP26Calls.Load() != before+1 {
			t.Fatalf("lean path not taken: %d %s %s", st, ct, got)
		}
		st, ct, b := sdk.post(body, tool, nil)
		if st != http.StatusOK || leanHTTP26Calls.Load() != before+1 {
			t.Fatalf("go-sdk's path not taken: %d %s %s", st, ct, b)
		}
		if want := message(t, ct, b); !bytes.Equal(got, want) {
			t.Fatalf("%s\nlean   %s\ngo-sdk %s", body, got, want)
		}
		line := stdio.roundTrip(t, body)
		line = bytes.Replace(line, []byte(`"name":"rand-stdio"`), clientsName, 1)
		if !bytes.Equal(got, line) {
			t.Fatalf("%s\nhttp  %s\nstdio %s", body, got, line)
		}
	}
}

// Whatever go-sdk refuses, or reads otherwise than this path would, is
// go-sdk's: the same status, content type and body as without the lean
// path.
func TestLeanHTTP26KeepsRefusals(t *testing.T) {
	lean, sdk := startRand26(t, Options{MaxMessageBytes: 4096})
	call := callBody(`1`, "rand", `{"Seed":1}`, `{}`)
	with := func(old, new string) string { return strings.Replace(call, old, new, 1) }
	cases := []struct {
		name, body string
		hdr        map[string]string
	}{
		{"wrong Mcp-Method", call, map[string]string{"Mcp-Method": "tools/list"}},
		{"wrong Mcp-Name", call, map[string]string{"Mcp-Name": "fail"}},
		{"Mcp-Name in another case", call, map[string]string{"Mcp-Name": "Rand"}},
		{"no Mcp-Method", call, map[string]string{"Mcp-Method": ""}},
		{"no Mcp-Name", call, map[string]string{"Mcp-Name": ""}},
		{"no protocol version header", call, map[string]string{"Mcp-Protocol-Version": ""}},
		{"unknown revision", call, map[string]string{"Mcp-Protocol-Version": "2027-01-01"}},
		{"header and _meta revisions differ", with(`"2026-07-28"`, `"2027-01-01"`), nil},
		{"accept json only", call, map[string]string{"Accept": "application/json"}},
		{"no accept", call, map[string]string{"Accept": ""}},
		{"content type", call, map[string]string{"Content-Type": "text/plain"}},
		{"no content type", call, map[string]string{"Content-Type": ""}},
		{"last event id", call, map[string]string{"Last-Event-ID": "x_1"}},
		{"param header", call, map[string]string{"Mcp-Param-Region": "eu"}},
		{"host go-sdk's guard refuses", call, map[string]string{"Host": "LOCALHOST"}},
		{"capabilities not an object", with(`clientCapabilities":{}`, `clientCapabilities":[]`), nil},
		{"no capabilities", with(`"io.modelcontextprotocol/clientCapabilities":{},`, ``), nil},
		{"client info not an object", with(`{"name":"raw","version":"1"}`, `"raw"`), nil},
		{"log level", with(`"io.modelcontextprotocol/clientInfo"`, `"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/clientInfo"`), nil},
		{"progress token", with(`"_meta":{`, `"_meta":{"progressToken":"p",`), nil},
		{"request state", with(`"arguments":{"Seed":1}`, `"arguments":{"Seed":1},"requestState":"forged"`), nil},
		{"bad json", call[:len(call)-2], nil},
		{"empty", "", nil},
		{"not 2.0", with(`"2.0"`, `"1.0"`), nil},
		{"too large", with(`"arguments":{"Seed":1}`, `"arguments":{"x":"`+strings.Repeat("a", 5000)+`"}`), nil},
		{"too deep", with(`"arguments":{"Seed":1}`, `"arguments":`+strings.Repeat(`[`, 1001)+strings.Repeat(`]`, 1001)), nil},
		{"name not a string", with(`"name":"rand"`, `"name":7`), nil},
		{"unknown method", with(`tools/call`, `tools/nope`), map[string]string{"Mcp-Method": "tools/nope"}},
		{"notification", with(`"id":1,`, ``), nil},
		{"batch", `[` + call + `]`, nil},
		{"required capability missing", callBody(`1`, "needs_model", `{}`, `{}`), map[string]string{"Mcp-Name": "needs_model"}},
	}
	// What go-sdk answers with a result, on its own path.
	accepted := map[string]bool{"param header": true, "progress token": true, "log level": true}
	takes := map[string]bool{"param header": true, "required capability missing": true}
	for _, c := range cases {
		before := leanHTTP26Calls.Load()
		ls, lct, lb := lean.post(c.body, "rand", c.hdr)
		ss, sct, sb := sdk.post(c.body, "rand", c.hdr)
		if takes[c.name] {
			// The lean path answers as go-sdk does: its round refuses a
			// required capability; go-sdk ignores Mcp-Param-* here.
			if leanHTTP26Calls.Load() != before+1 {
				t.Errorf("%s: not on the lean path", c.name)
			}
			sb = message(t, sct, sb)
			sct = "application/json"
		} else if leanHTTP26Calls.Load() != before {
			t.Errorf("%s: answered on the lean path", c.name)
		}
		if ls != ss || lct != sct || !bytes.Equal(lb, sb) {
			t.Errorf("%s: with the lean path %d %s %q; without %d %s %q", c.name, ls, lct, lb, ss, sct, sb)
		}
		if ls == http.StatusOK && !accepted[c.name] {
			t.Errorf("%s: %d %s, want a refusal", c.name, ls, lb)
		}
	}
}

// A call of a host that declared roots (as go-sdk's client does) takes
// the lean path and may still ask for them: the input-required round
// answers the request while the call waits, and the host's retry, on
// go-sdk's path, gets the result; all as without the lean path.
func TestLeanHTTP26RootsRound(t *testing.T) {
	lean, sdk := startRand26(t, Options{})
	caps := `{"roots":{"listChanged":true}}`
	var answers [2]map[string]any
	for i, h := range []*host26{lean, sdk} {
		before := leanHTTP26Calls.Load()
		st, ct, b := h.post(callBody(`1`, "roots", `{}`, caps), "roots", nil)
		var first map[string]any
		if err := json.Unmarshal(message(t, ct, b), &first); err != nil || st != http.StatusOK {
			t.Fatalf("first round: %d %s", st, b)
		}
		if took := leanHTTP26Calls.Load() != before; took != (h == lean) {
			t.Errorf("lean path taken: %v", took)
		}
		res, _ := first["result"].(map[string]any)
		asks, _ := res["inputRequests"].(map[string]any)
		state, _ := res["requestState"].(string)
		if res["resultType"] != "input_required" || len(asks) != 1 || state == "" {
			t.Fatalf("first round = %s, want one question and a state", b)
		}
		var key string
		for k := range asks {
			key = k
		}
		retry := strings.Replace(callBody(`2`, "roots", `{}`, caps), `"arguments":{}`,
			`"arguments":{},"requestState":"`+state+`","inputResponses":{"`+key+`":{"roots":[{"uri":"file:///work","name":"w"}]}}`, 1)
		st, ct, b = h.post(retry, "roots", nil)
		if err := json.Unmarshal(message(t, ct, b), &answers[i]); err != nil || st != http.StatusOK {
			t.Fatalf("retry: %d %s", st, b)
		}
		if got := resultText(answers[i]); got != "file:///work" {
			t.Errorf("retry = %s, want the host's root", b)
		}
		delete(answers[i]["result"].(map[string]any)["_meta"].(map[string]any), "toolgen.dev/latency_ms")
	}
	if !reflect.DeepEqual(answers[0], answers[1]) {
		t.Errorf("with the lean path %v\nwithout %v", answers[0], answers[1])
	}
}

// Over serve --http with a real upstream (the echo fixture over stdio),
// go-sdk's own client at 2026-07-28 gets its calls answered on the lean
// path, while a 2025-11-25 host uses the same agent on its own lean path;
// a 2026 host that declared sampling and elicitation stays on go-sdk's
// path and its rounds.
func TestLeanHTTP26OfficialClients(t *testing.T) {
	cl := NewClients(func(context.Context) (OwnedSession, error) { return openEcho(t, runtime.Options{}), nil }, Options{})
	url := startClients(t, cl)
	cs26, _ := clientAt(t, StatelessRevision, overHTTP(url))
	cs25, _ := clientAt(t, "2025-11-25", overHTTP(url))
	before26, before25 := leanHTTP26Calls.Load(), leanHTTPCalls.Load()
	const n = 20
	var wg sync.WaitGroup
	for _, cs := range []*mcp.ClientSession{cs26, cs25} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo__echo", Arguments: map[string]any{"text": fmt.Sprint("call ", i)}})
				if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != fmt.Sprint("call ", i) {
					t.Errorf("echo %d: %v %+v", i, err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := leanHTTP26Calls.Load() - before26; got != n {
		t.Errorf("%d of %d calls of the 2026 host on its lean path", got, n)
	}
	if got := leanHTTPCalls.Load() - before25; got != n {
		t.Errorf("%d of %d calls of the 2025 host on its lean path", got, n)
	}
	res, err := cs26.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo__fail", Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Errorf("fail: %v %+v", err, res)
	}

	// Rounds stay go-sdk's.
	before26 = leanHTTP26Calls.Load()
	roundsCl := NewClients(func(context.Context) (OwnedSession, error) { return newFakeSession(), nil }, Options{})
	asker := answeringClient(t, StatelessRevision, overHTTP(startClients(t, roundsCl)))
	if res := call(t, asker, "ask", nil); res.IsError || text(t, res) != "hello, Ada" {
		t.Errorf("ask = %v %q, want hello, Ada", res.IsError, text(t, res))
	}
	if leanHTTP26Calls.Load() != before26 {
		t.Error("a call that may sample or elicit took the lean path")
	}
}

// The lean path takes a 2026-07-28 body only where go-sdk reads the same
// call from it: one request, method tools/call, the same id, name,
// arguments and _meta, the revision and capabilities go-sdk requires,
// and no progress token.
func FuzzLeanHTTP26Body(f *testing.F) {
	for _, s := range []string{
		callBody(`1`, "echo", `{"a":1}`, `{}`),
		callBody(`"x"`, "e\u0301", `null`, `{"roots":{}}`),
		callBody(`1.0`, "a", `{}`, `{"sampling":{}}`),
		strings.Replace(callBody(`1`, "a", `{}`, `{}`), `"_meta":{`, `"_meta":{"progressToken":1,`, 1),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`,
	} {
		f.Add([]byte(s))
	}
	s := New(newFakeSession(), Options{})
	f.Cleanup(func() { s.Close() })
	l := &leanHTTP26{}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg, derr := jsonrpc.DecodeMessage(body)
		name := "x"
		var p mcp.CallToolParamsRaw
		if req, ok := msg.(*jsonrpc.Request); ok && derr == nil && json.Unmarshal(req.Params, &p) == nil {
			name = p.Name
		}
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		r.Header.Set("Mcp-Name", name)
		req, host, head := l.read(r, s, body)
		if req == nil {
			return
		}
		if derr != nil {
			t.Fatalf("taken, go-sdk refuses it: %v", derr)
		}
		sreq, ok := msg.(*jsonrpc.Request)
		if !ok || sreq.Method != "tools/call" || !sreq.IsCall() {
			t.Fatalf("taken, go-sdk reads %#v", msg)
		}
		if p.Name != req.Params.Name || !bytes.Equal(p.Arguments, req.Params.Arguments) || !reflect.DeepEqual(p.Meta, req.Params.Meta) {
			t.Fatalf("read %+v, go-sdk %+v", req.Params, p)
		}
		if v, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string); v != StatelessRevision || host == nil || mayAsk(host.Capabilities) {
			t.Fatalf("took a call of %q declaring %+v", v, host)
		}
		if _, ok := p.Meta["progressToken"]; ok {
			t.Fatal("took a call with a progress token")
		}
		var id bytes.Buffer // as go-sdk encodes: no HTML escaping
		enc := json.NewEncoder(&id)
		enc.SetEscapeHTML(false)
		enc.Encode(sreq.ID.Raw())
		if want := `{"jsonrpc":"2.0","id":` + strings.TrimSpace(id.String()) + `,"result":`; string(head) != want {
			t.Fatalf("head %s, want %s", head, want)
		}
	})
}

// A host that hangs up on a call that asked it nothing cancels the call,
// as on go-sdk's path.
func TestLeanHTTP26HangUpCancels(t *testing.T) {
	f := newFakeSession()
	cl := NewClients(func(context.Context) (OwnedSession, error) { return randAsking{f}, nil }, Options{})
	url := startClients(t, cl)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(callBody(`1`, "slow", `{}`, `{"roots":{}}`)))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": StatelessRevision, "Mcp-Method": "tools/call", "Mcp-Name": "slow"} {
		req.Header.Set(k, v)
	}
	before := leanHTTP26Calls.Load()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-f.slowStarted
	if leanHTTP26Calls.Load() != before+1 {
		t.Error("not on the lean path")
	}
	cancel()
	<-done
	waitFor(t, "the call cancelled", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.slowCancelled == 1
	})
}
