package serve

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	rt "runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
)

// A 2026-07-28 host that declares nothing the echo fixture could ask for
// (so its connection is not replaced for it).
const plainMeta26 = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

func call26Line(id, tool, args, extra string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":%s%s}}`+"\n", id, tool, args, plainMeta26, extra))
}

// A 2026-07-28 host's proxied call in flight holds no goroutine, as an
// older host's does (TestProxiedCallsInFlightHoldNoGoroutine): its first
// half runs on the host's reader, its answer is written by the server's
// reader. Before, each such call held the host's reader until the server
// answered, and the reader handed reading to another goroutine: a
// goroutine per call in flight, and two wake-ups per call that a
// 2025-11-25 call does not pay. Cancelled, each still answers the host.
func TestStatelessProxiedCallsHoldNoGoroutine(t *testing.T) {
	logs := &logRecords{}
	s := New(openEcho(t, runtime.Options{Logger: slog.New(logs)}), Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.send(call26Line("1", "echo__echo", `{"text":"warm"}`, "")) // names the host
	c.wait("1")
	before := leanStatelessCalls.Load()
	const k = 40
	g0 := rt.NumGoroutine()
	var lines strings.Builder
	for i := range k {
		lines.Write(call26Line(fmt.Sprint(100+i), "echo__sleep", `{"ms":600000}`, ""))
	}
	lines.Write(call26Line("2", "echo__echo", `{"text":"after"}`, ""))
	c.send([]byte(lines.String()))
	if typ, text := resultOf26(t, c.wait("2")); typ != "complete" || text != "after" {
		t.Fatalf("call after the sleeps: %s %q", typ, text)
	}
	if grown := rt.NumGoroutine() - g0; grown >= k/4 {
		t.Errorf("%d calls in flight hold %d more goroutines", k, grown)
	}
	if n := leanStatelessCalls.Load() - before; n != k+1 {
		t.Errorf("%d calls took the lean path, want %d", n, k+1)
	}
	for i := range k {
		if c.has(fmt.Sprint(100 + i)) {
			t.Fatalf("call %d answered before it was cancelled", 100+i)
		}
		c.send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`+"\n", 100+i)))
	}
	for i := range k {
		m := c.wait(fmt.Sprint(100 + i))
		if m["error"] == nil && m["result"] == nil {
			t.Errorf("cancelled call %d answered %v", 100+i, m)
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

// A 2026-07-28 call run in two halves answers and reports as the same
// call on go-sdk's path: the same response (resultType, serverInfo and
// all) and the same tool.call event.
func TestStatelessAsyncCallAnswersAsGoSDK(t *testing.T) {
	logs := &logRecords{}
	s := New(openEcho(t, runtime.Options{Logger: slog.New(logs)}), Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.send(call26Line(`"warm"`, "echo__echo", `{"text":"warm"}`, ""))
	c.wait(`"warm"`)
	for i, tc := range []struct{ tool, args string }{
		{"echo__echo", `{"text":"<a & b>"}`},
		{"echo__fail", `{}`},
		{"echo__sleep", `{"ms":30}`},
		{"echo__echo", `{"wrong":1}`}, // refused by the input schema
	} {
		before := len(logs.named("tool.call"))
		c.send(call26Line(fmt.Sprint(i), tc.tool, tc.args, ""))
		async := c.wait(fmt.Sprint(i))
		// an unknown member of params sends the call to go-sdk's path
		c.send(call26Line(fmt.Sprintf(`"sdk-%d"`, i), tc.tool, tc.args, `,"x-other":1`))
		sync := c.wait(fmt.Sprintf(`"sdk-%d"`, i))
		events := logs.named("tool.call")[before:]
		if len(events) != 2 {
			t.Fatalf("%s: %d tool.call events, want 2", tc.tool, len(events))
		}
		for _, e := range events {
			delete(e, "latency_ms")
		}
		if !reflect.DeepEqual(events[0], events[1]) {
			t.Errorf("%s: events differ:\nasync %v\nsync  %v", tc.tool, events[0], events[1])
		}
		for _, m := range []map[string]any{async, sync} {
			delete(m, "id")
			if r, ok := m["result"].(map[string]any); ok {
				if meta, ok := r["_meta"].(map[string]any); ok {
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
