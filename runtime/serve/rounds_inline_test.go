package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// whereSession's "where" tool says whether it runs on the goroutine that
// read its request (jsonrpcline's read loop is on its stack), and whether
// a round worker exists anywhere then.
type whereSession struct{ askingSession }

func (w whereSession) Call(ctx context.Context, name string, args json.RawMessage) runtime.Result {
	if name != "where" {
		return w.askingSession.Call(ctx, name, args)
	}
	own := make([]byte, 64<<10)
	own = own[:goruntime.Stack(own, false)]
	all := make([]byte, 1<<20)
	all = all[:goruntime.Stack(all, true)]
	return runtime.Result{OK: true, Result: "reader=" + strconv.FormatBool(bytes.Contains(own, []byte("jsonrpcline.(*Conn).readLoop"))) +
		" worker=" + strconv.FormatBool(bytes.Contains(all, []byte("(*rounds).worker")))}
}

func (w whereSession) Tools() []runtime.ToolInfo {
	return append(w.askingSession.Tools(), runtime.ToolInfo{Name: "where", InputSchema: json.RawMessage(`{"type":"object"}`)})
}

const rawMeta26 = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

func rawCall26(id, name, extra string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{},"_meta":` + rawMeta26 + extra + `}}` + "\n")
}

func resultOf26(t *testing.T, m map[string]any) (resultType, text string) {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res == nil {
		t.Fatalf("no result: %v", m)
	}
	resultType, _ = res["resultType"].(string)
	if content, _ := res["content"].([]any); len(content) == 1 {
		text, _ = content[0].(map[string]any)["text"].(string)
	}
	return resultType, text
}

// A 2026-07-28 call that asks its host nothing runs where a 2025-11-25
// call runs, on the goroutine that read it: no round worker, no hand-off.
func TestStatelessCallRunsOnTheReader(t *testing.T) {
	s := New(whereSession{askingSession{newFakeSession()}}, Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.send([]byte(`{"jsonrpc":"2.0","id":"first","method":"tools/list","params":{"_meta":` + rawMeta26 + `}}` + "\n"))
	c.wait(`"first"`)
	before := leanStatelessCalls.Load()
	for i := range 20 {
		id := strconv.Itoa(i + 1)
		c.send(rawCall26(id, "where", ""))
		typ, text := resultOf26(t, c.wait(id))
		if typ != "complete" || text != "reader=true worker=false" {
			t.Fatalf("call %d: %s %q, want a complete result run on the reader with no round worker", i, typ, text)
		}
	}
	if n := leanStatelessCalls.Load() - before; n != 20 {
		t.Errorf("%d calls took the lean path, want 20", n)
	}
}

// A call on the reader that asks its host still gets input-required
// rounds over stdio: the questions it asks together in one round, the
// retry's answers back to it where it runs, its result to the retry. One
// that asks a required question its host cannot answer fails with -32021,
// and one whose request is cancelled before it asks ends.
func TestStatelessRoundsFromTheReader(t *testing.T) {
	f := newFakeSession()
	s := New(whereSession{askingSession{f}}, Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.send([]byte(`{"jsonrpc":"2.0","id":"first","method":"tools/list","params":{"_meta":` + rawMeta26 + `}}` + "\n"))
	c.wait(`"first"`)
	before := leanStatelessCalls.Load()

	// Two questions at once (an elicitation and a sampling request).
	c.send(rawCall26(`1`, "ask", ""))
	m := c.wait(`1`)
	res := m["result"].(map[string]any)
	asks, _ := res["inputRequests"].(map[string]any)
	state, _ := res["requestState"].(string)
	if res["resultType"] != "input_required" || len(asks) != 2 || state == "" {
		t.Fatalf("first round = %v, want both questions in one input-required round", m)
	}
	answers := map[string]any{}
	for k, q := range asks {
		if strings.Contains(string(mustJSON(t, q)), "Your name?") {
			answers[k] = map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}
		} else {
			answers[k] = map[string]any{"model": "m", "role": "assistant", "content": map[string]any{"type": "text", "text": "hello"}}
		}
	}
	c.send(rawCall26(`2`, "ask", `,"requestState":"`+state+`","inputResponses":`+string(mustJSON(t, answers))))
	if typ, text := resultOf26(t, c.wait(`2`)); typ != "complete" || text != "hello, Ada" {
		t.Fatalf("retry = %s %q, want complete \"hello, Ada\"", typ, text)
	}
	// The same state again: its call is over.
	c.send(rawCall26(`3`, "ask", `,"requestState":"`+state+`","inputResponses":`+string(mustJSON(t, answers))))
	if m := c.wait(`3`); m["error"] == nil {
		t.Errorf("a spent state was accepted: %v", m)
	}

	// A named question, answered ahead with the first request.
	c.send(rawCall26(`4`, "greet", `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Bo"}}}`))
	if m := c.wait(`4`); !strings.Contains(string(mustJSON(t, m)), "Hello, Bo!") {
		// answers ahead go through go-sdk's path (inputResponses): fine too
		t.Errorf("greet answered ahead = %v", m)
	}

	// A required question the host did not declare it can answer.
	c.send([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"needs_model","arguments":{},"_meta":` +
		strings.Replace(rawMeta26, `"sampling":{}`, `"roots":{}`, 1) + `}}` + "\n"))
	if e, _ := c.wait(`5`)["error"].(map[string]any); e == nil || e["code"] != float64(mcp.CodeMissingRequiredClientCapabilities) {
		t.Errorf("needs_model without sampling = %v, want -32021", e)
	}

	// Cancelled before it asks anything: the call ends, the request gets
	// an error as a call of rounds does.
	c.send(rawCall26(`6`, "slow", ""))
	select {
	case <-f.slowStarted:
	case <-time.After(20 * time.Second):
		t.Fatal("slow did not start")
	}
	c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}` + "\n"))
	if m := c.wait(`6`); m["error"] == nil {
		t.Errorf("a cancelled call answered %v, want an error", m)
	}
	f.mu.Lock()
	cancelled := f.slowCancelled
	f.mu.Unlock()
	if cancelled != 1 {
		t.Errorf("slow saw %d cancellations, want 1", cancelled)
	}
	if n := leanStatelessCalls.Load() - before; n != 3 {
		t.Errorf("%d calls took the lean path, want 3 (1, 5, 6: the rest carry answers, go-sdk's)", n)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stdioHost is a host of one revision on raw lines (no client library)
// over pipes to ServeIO: a 2025-11-25 host initializes once and then sends
// plain calls; a 2026-07-28 host sends the revision, its capabilities and
// its client info in every call's _meta, as go-sdk's client does. call
// sends echo with the next id and returns the response line.
func stdioHost(tb testing.TB, rev string) (call func() []byte, stop func()) {
	const caps = `{"elicitation":{"form":{}},"sampling":{}}`
	const info = `{"name":"bench","version":"1"}`
	s := New(newFakeSession(), Options{})
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(context.Background(), sr, sw); sw.Close() }()
	out := bufio.NewReader(cr)
	roundTrip := func(line string) []byte {
		if _, err := io.WriteString(cw, line+"\n"); err != nil {
			tb.Fatal(err)
		}
		resp, err := out.ReadBytes('\n')
		if err != nil {
			tb.Fatal(err)
		}
		return resp
	}
	var meta string
	if rev == StatelessRevision {
		meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
			`,"io.modelcontextprotocol/clientInfo":` + info + `}`
		roundTrip(`{"jsonrpc":"2.0","id":0,"method":"tools/list","params":{` + meta[1:] + `}`)
	} else {
		roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":` + info + `}}`)
		io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	}
	want := []byte(`hello from the benchmark`)
	id := 0
	call = func() []byte {
		id++
		resp := roundTrip(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from the benchmark"}` + meta + `}}`)
		if !bytes.Contains(resp, want) || bytes.Contains(resp, []byte(`"isError":true`)) {
			tb.Fatalf("%s", resp)
		}
		return resp
	}
	return call, func() {
		cw.Close()
		<-done
		s.Close()
	}
}

// A plain 2026-07-28 call allocates no more than a 2025-11-25 call on the
// lean stdio path (it was 49 against 18: a round's worker hand-off,
// channels and context, a copy of _meta, the result built and encoded
// reflectively).
func TestStatelessCallAllocatesAsOlder(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations over many calls")
	}
	if raceEnabled {
		t.Skip("the race detector changes what allocates (one more for a 2026-07-28 call)")
	}
	allocs := map[string]float64{}
	for _, rev := range []string{"2025-11-25", StatelessRevision} {
		call, stop := stdioHost(t, rev)
		for range 50 {
			call()
		}
		allocs[rev] = testing.AllocsPerRun(500, func() { call() })
		stop()
	}
	// AllocsPerRun counts the process's: half an allocation of slack for
	// what runs beside (the pipes' goroutines, timers).
	if allocs[StatelessRevision] > allocs["2025-11-25"]+0.5 {
		t.Errorf("a 2026-07-28 call allocates %.1f times, a 2025-11-25 call %.1f", allocs[StatelessRevision], allocs["2025-11-25"])
	}
	t.Logf("allocations per call: %v", allocs)
}

// A host of the stateless revision is named in the log (serve.client)
// once, the first time its name, version and revision are seen, over
// stdio and HTTP; it never initializes, where older hosts are named.
func TestStatelessHostNamedOnce(t *testing.T) {
	var logs syncBuffer
	s := New(askingSession{newFakeSession()}, Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	defer s.Close()
	c := startRaw(t, s)
	c.send([]byte(`{"jsonrpc":"2.0","id":"first","method":"tools/list","params":{"_meta":` + rawMeta26 + `}}` + "\n"))
	c.wait(`"first"`)
	for i := range 3 {
		id := strconv.Itoa(i + 1)
		c.send(rawCall26(id, "echo", ""))
		c.wait(id)
	}
	other := strings.Replace(rawMeta26, `"version":"1"`, `"version":"2"`, 1)
	c.send([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":` + other + `}}` + "\n"))
	c.wait(`9`)
	url := startHTTP(t, s)
	for range 2 {
		if code, _ := post26(t, url, "tools/call", "echo", `{"name":"echo","arguments":{},"_meta":`+strings.Replace(rawMeta26, `"raw"`, `"web"`, 1)+`}`); code != 200 {
			t.Fatalf("HTTP status %d", code)
		}
	}
	var named []string
	for _, line := range strings.Split(logs.String(), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) == nil && e["msg"] == "serve.client" {
			named = append(named, fmt.Sprint(e["client"], " ", e["client_version"], " ", e["protocol"]))
		}
	}
	want := []string{"raw 1 2026-07-28", "raw 2 2026-07-28", "web 1 2026-07-28"}
	if !slices.Equal(named, want) {
		t.Errorf("serve.client lines name %q, want %q", named, want)
	}
}

// syncBuffer is a bytes.Buffer for a logger written from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
