package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	rt "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
)

// logRecords keeps what a logger is told, from debug up.
type logRecords struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.recs = append(l.recs, r.Clone())
	l.mu.Unlock()
	return nil
}
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecords) WithGroup(string) slog.Handler      { return l }

// named is the attributes of each record with this message, as strings.
func (l *logRecords) named(msg string) []map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]string
	for _, r := range l.recs {
		if r.Message != msg {
			continue
		}
		m := map[string]string{}
		r.Attrs(func(a slog.Attr) bool {
			m[a.Key] = a.Value.String()
			return true
		})
		out = append(out, m)
	}
	return out
}

// count is how many records have this message and an attribute whose
// value holds text.
func (l *logRecords) count(msg, text string) int {
	n := 0
	for _, m := range l.named(msg) {
		for _, v := range m {
			if strings.Contains(v, text) {
				n++
				break
			}
		}
	}
	return n
}

func callLine(id, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", id, tool, args)
}

// A proxied call in flight holds no goroutine: its first half runs on the
// host's reader and its answer is written by the server's reader, as a
// bare relay's two readers do. Before, each call in flight parked a
// goroutine waiting for the server's answer (and the host's reader handed
// reading to another goroutine for each). Cancelled, each still answers
// the host, and the server is told.
func TestProxiedCallsInFlightHoldNoGoroutine(t *testing.T) {
	logs := &logRecords{}
	s := New(openEcho(t, runtime.Options{Logger: slog.New(logs)}), Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.initialize()
	c.send([]byte(callLine("1", "echo__echo", `{"text":"warm"}`)))
	c.wait("1")
	const k = 40
	g0 := rt.NumGoroutine()
	var lines strings.Builder
	for i := range k {
		lines.WriteString(callLine(fmt.Sprint(100+i), "echo__sleep", `{"ms":600000}`))
	}
	// answered after the server has all the sleeps: it reads in order
	lines.WriteString(callLine("2", "echo__echo", `{"text":"after"}`))
	c.send([]byte(lines.String()))
	c.wait("2")
	if grown := rt.NumGoroutine() - g0; grown >= k/4 {
		t.Errorf("%d calls in flight hold %d more goroutines", k, grown)
	}
	// an id in flight on this path is refused as go-sdk refuses it
	c.send([]byte(callLine("100", "echo__echo", `{"text":"again"}`)))
	if e, _ := c.wait("null")["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
		t.Errorf("a reused id was answered %v", c.wait("null"))
	}
	cancelSleeps(t, c, logs, k, func(res map[string]any) bool {
		r, _ := res["result"].(map[string]any)
		return r != nil && r["isError"] == true
	})
}

// cancelSleeps cancels the k sleeps in flight under ids 100…, checks each
// is answered as answeredOK says a cancelled call is, and that the server
// was told of every one (it says so on stderr for each sleep it ends).
func cancelSleeps(t *testing.T, c *rawClient, logs *logRecords, k int, answeredOK func(map[string]any) bool) {
	t.Helper()
	for i := range k {
		if c.has(fmt.Sprint(100 + i)) {
			t.Fatalf("call %d answered before it was cancelled", 100+i)
		}
		c.send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`+"\n", 100+i)))
	}
	for i := range k {
		if res := c.wait(fmt.Sprint(100 + i)); !answeredOK(res) {
			t.Errorf("cancelled call %d answered %v", 100+i, res)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for logs.count("server.stderr", "sleep cancelled") < k && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := logs.count("server.stderr", "sleep cancelled"); n != k {
		t.Errorf("the server was told of %d cancelled calls, want %d", n, k)
	}
}

// A call run in two halves reports what the same call run the usual way
// reports: the same answer and the same tool.call event, latency
// included (the time until its answer, not until its first half ended).
func TestAsyncCallReportsAsTheSyncPath(t *testing.T) {
	logs := &logRecords{}
	s := New(openEcho(t, runtime.Options{Logger: slog.New(logs)}), Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.initialize()
	for i, tc := range []struct{ tool, args string }{
		{"echo__echo", `{"text":"hi"}`},
		{"echo__fail", `{}`},
		{"echo__sleep", `{"ms":30}`},
		{"echo__echo", `{"wrong":1}`}, // refused by the input schema
	} {
		before := len(logs.named("tool.call"))
		c.send([]byte(callLine(fmt.Sprint(i), tc.tool, tc.args)))
		async := c.wait(fmt.Sprint(i))
		// an unknown member of params sends the call to go-sdk's path,
		// which runs it on the session synchronously (Session.Call)
		c.send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"sdk-%d","method":"tools/call","params":{"name":%q,"arguments":%s,"x-other":1}}`+"\n", i, tc.tool, tc.args)))
		sync := c.wait(fmt.Sprintf(`"sdk-%d"`, i))
		events := logs.named("tool.call")[before:]
		if len(events) != 2 {
			t.Fatalf("%s: %d tool.call events, want 2", tc.tool, len(events))
		}
		for _, e := range events {
			if tc.tool == "echo__sleep" {
				var ms float64
				fmt.Sscan(e["latency_ms"], &ms)
				if ms < 30 {
					t.Errorf("%s: latency %v ms, less than the server took", tc.tool, ms)
				}
			}
			delete(e, "latency_ms")
		}
		if !reflect.DeepEqual(events[0], events[1]) {
			t.Errorf("%s: events differ:\nasync %v\nsync  %v", tc.tool, events[0], events[1])
		}
		for _, m := range []map[string]any{async, sync} {
			delete(m, "id")
			if r, ok := m["result"].(map[string]any); ok {
				if meta, ok := r["_meta"].(map[string]any); ok {
					if meta["toolgen.dev/latency_ms"] == nil {
						t.Errorf("%s: no latency in %v", tc.tool, m)
					}
					delete(meta, "toolgen.dev/latency_ms")
				}
			}
		}
		if !reflect.DeepEqual(async, sync) {
			a, _ := json.Marshal(async)
			b, _ := json.Marshal(sync)
			t.Errorf("%s: answers differ:\nasync %s\nsync  %s", tc.tool, a, b)
		}
	}
}

// A call on the two-halves path that outlives its tool's timeout ends as
// the same call run the usual way ends: the same answer and tool.call
// event, and the server told the call is cancelled. A faster path for
// proxied calls must keep this, error text included.
func TestAsyncCallTimesOutAsTheSyncPath(t *testing.T) {
	logs := &logRecords{}
	s := New(openEchoTimeout(t, runtime.Options{Logger: slog.New(logs)}, 300*time.Millisecond), Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.initialize()
	before := len(logs.named("tool.call"))
	c.send([]byte(callLine("1", "echo__sleep", `{"ms":600000}`)))
	async := c.wait("1")
	// an unknown member of params: go-sdk's path, Session.Call
	c.send([]byte(`{"jsonrpc":"2.0","id":"sdk-1","method":"tools/call","params":{"name":"echo__sleep","arguments":{"ms":600000},"x-other":1}}` + "\n"))
	sync := c.wait(`"sdk-1"`)
	events := logs.named("tool.call")[before:]
	if len(events) != 2 {
		t.Fatalf("%d tool.call events, want 2", len(events))
	}
	for _, e := range events {
		delete(e, "latency_ms")
	}
	if !reflect.DeepEqual(events[0], events[1]) {
		t.Errorf("events differ:\nasync %v\nsync  %v", events[0], events[1])
	}
	for _, m := range []map[string]any{async, sync} {
		delete(m, "id")
		if r, ok := m["result"].(map[string]any); ok {
			if meta, ok := r["_meta"].(map[string]any); ok {
				delete(meta, "toolgen.dev/latency_ms")
			}
		}
	}
	a, _ := json.Marshal(async)
	b, _ := json.Marshal(sync)
	if string(a) != string(b) {
		t.Errorf("answers differ:\nasync %s\nsync  %s", a, b)
	}
	if r, _ := async["result"].(map[string]any); r == nil || r["isError"] != true || !strings.Contains(string(a), "300ms") {
		t.Errorf("a call past its timeout answered %s, want an error naming the timeout", a)
	}
	deadline := time.Now().Add(20 * time.Second)
	for logs.count("server.stderr", "sleep cancelled") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := logs.count("server.stderr", "sleep cancelled"); n != 2 {
		t.Errorf("the server was told of %d cancelled calls, want 2", n)
	}
}

// A host that closes its input with calls in flight on the two-halves
// path gets every answer before ServeIO returns (the drain waits for the
// calls, whose answers the server's reader writes).
func TestAsyncCallsAnsweredBeforeServeIOReturns(t *testing.T) {
	s := New(openEcho(t, runtime.Options{}), Options{})
	defer s.Close()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(context.Background(), sr, sw); sw.Close() }()
	answered := make(chan map[string]string, 1)
	after := make(chan struct{})
	go func() {
		got := map[string]string{}
		sc := bufio.NewScanner(cr)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage
				Result struct{ Content []struct{ Text string } }
			}
			json.Unmarshal(sc.Bytes(), &m)
			if len(m.Result.Content) > 0 {
				got[string(m.ID)] = m.Result.Content[0].Text
			}
			if string(m.ID) == "2" {
				close(after)
			}
		}
		answered <- got
	}()
	const k = 10
	var lines strings.Builder
	lines.WriteString(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")
	lines.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	lines.WriteString(callLine("1", "echo__echo", `{"text":"connect"}`))
	for i := range k {
		lines.WriteString(callLine(fmt.Sprint(100+i), "echo__sleep", `{"ms":500}`))
	}
	lines.WriteString(callLine("2", "echo__echo", `{"text":"after"}`))
	go io.WriteString(cw, lines.String())
	select {
	case <-after:
	case <-time.After(30 * time.Second):
		t.Fatal("no answer to the call after the sleeps")
	}
	cw.Close()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("ServeIO did not return")
	}
	got := <-answered
	for i := range k {
		if id := fmt.Sprint(100 + i); got[id] != "slept" {
			t.Errorf("call %s answered %q before ServeIO returned, want slept", id, got[id])
		}
	}
}
