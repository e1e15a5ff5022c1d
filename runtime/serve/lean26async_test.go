package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	rt "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
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
	cancelSleeps(t, c, logs, k, func(m map[string]any) bool { return m["error"] != nil || m["result"] != nil })
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

var roundsBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "servetest-rounds")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "rounds")
	if out, err := exec.Command("go", "build", "-o", bin, "../../testdata/mcpservers/rounds").CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// A 2026-07-28 call run in two halves that asks its host something (an
// upstream of 2025-11-25 sends the agent an elicitation, then a sampling
// request) still gets its input-required round: the round's waiter
// answers the request, the retry's answers go back to the upstream, and
// the result, which the upstream's reader gets, reaches the retry.
func TestStatelessAsyncCallAsksItsHost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a fixture MCP server")
	}
	bin, err := roundsBin()
	if err != nil {
		t.Fatalf("build rounds fixture: %v", err)
	}
	reg := &runtime.Registry{
		Package: "servetest", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 30 * time.Second, MaxDepth: 2, InitConcurrency: 1},
		Servers:  []decl.Server{{Name: "rounds", Transport: "stdio", Command: bin, Trusted: true, StartupTimeout: 30 * time.Second, ProtocolVersion: "2025-11-25"}},
		Agents:   []decl.Agent{{Name: "gateway", Use: []decl.Use{{Kind: decl.UseServer, Name: "rounds"}}}},
	}
	sess, err := runtime.Open(context.Background(), reg, "gateway", runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := New(sess, Options{})
	defer s.Close()
	c := startRaw(t, s)
	// the host lists first: the upstream connection then declares what it can answer
	c.send([]byte(`{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{"_meta":` + rawMeta26 + `}}` + "\n"))
	c.wait(`"list"`)
	call := func(id, tool, extra string) map[string]any {
		c.send(rawCall26(id, tool, extra))
		return c.wait(id)
	}
	before := leanStatelessCalls.Load()
	for i, tc := range []struct{ tool, answer, want string }{
		{"rounds__confirm", `{"action":"accept","content":{"answer":"yes"}}`, `accept: {"answer":"yes"}`},
		{"rounds__summarize", `{"model":"m","role":"assistant","content":{"type":"text","text":"short"}}`, `"short"`},
	} {
		first := call(fmt.Sprint(10*i+1), tc.tool, "")
		res, _ := first["result"].(map[string]any)
		asks, _ := res["inputRequests"].(map[string]any)
		state, _ := res["requestState"].(string)
		if res["resultType"] != "input_required" || len(asks) != 1 || state == "" {
			t.Fatalf("%s: first answer %v, want one input-required question", tc.tool, first)
		}
		var key string
		for k := range asks {
			key = k
		}
		typ, text := resultOf26(t, call(fmt.Sprint(10*i+2), tc.tool, `,"requestState":"`+state+`","inputResponses":{"`+key+`":`+tc.answer+`}`))
		if typ != "complete" || !strings.Contains(text, tc.want) {
			t.Errorf("%s: retry %s %q, want complete with %s", tc.tool, typ, text, tc.want)
		}
	}
	if n := leanStatelessCalls.Load() - before; n < 2 {
		t.Errorf("%d calls took the lean path, want the two first ones at least", n)
	}
}
