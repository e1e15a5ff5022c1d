package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"go.uber.org/goleak"
)

// Seed tool-system, scenario "ToolExecuteResult".
func TestToolExecuteResult(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseTool, Name: "summarize"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	r := call(t, s, "github__search_code", `{"q":"x"}`)
	b, _ := json.Marshal(r)
	var m map[string]any
	json.Unmarshal(b, &m)
	if m["ok"] != true || m["result"] != `search_code:{"q":"x"}` || m["kind"] != "mcp" || m["namespace"] != "github" {
		t.Errorf("result JSON %s", b)
	}
	if _, ok := m["latency"].(float64); !ok {
		t.Errorf("latency not a number of ms: %s", b)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back.Result != r.Result || back.Kind != decl.KindMCP {
		t.Errorf("round trip %+v %v", back, err)
	}
	if r := call(t, s, "summarize", `{}`); r.Kind != decl.KindGo || r.Namespace != "go" {
		t.Errorf("go tool kind/namespace %+v", r)
	}
}

// Seed tool-system: Mcptool error is result.
func TestMCPToolErrorIsResult(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "docs"}}})
	addEchoTool(f.conn.servers["docs"], "fail")
	s := open(t, f.reg, "a", f.opts(&events{}))
	if r := call(t, s, "docs__fail", `{}`); r.OK || r.Error != "it failed" || r.Namespace != "docs" {
		t.Errorf("result %+v", r)
	}
}

// Seed tool-system, scenario "AgentProvider".
func TestAgentProvider(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "lead", Subagents: []string{"researcher"}},
		decl.Agent{Name: "researcher", Description: "Finds things.", Use: useTools("search_hybrid")},
	)
	var childTools []string
	runner := runnerFunc(func(ctx context.Context, child *Session, prompt string) (string, error) {
		childTools = poolNames(child)
		r := child.Call(ctx, "search_hybrid", json.RawMessage(`{"id":"q"}`))
		return "found " + r.Result + " for " + prompt, nil
	})
	opts := f.opts(&events{})
	opts.Runner = runner
	s := open(t, f.reg, "lead", opts)
	ti := infoOf(s.Tools(), "agent__researcher")
	if ti.Kind != decl.KindAgent || ti.Namespace != "subagent" || !strings.Contains(ti.Description, "Finds things.") {
		t.Errorf("tool %+v", ti)
	}
	out := mustOK(t, call(t, s, "agent__researcher", `{"prompt":"cats"}`))
	if out != `found {"id":"q"} for cats` || !slices.Equal(childTools, []string{"search_hybrid"}) {
		t.Errorf("out %q, child tools %v", out, childTools)
	}
	// no Runner: the built-in loop, and a researcher without a model (and
	// no host that samples) is an error result that says so, not a crash
	opts.Runner = nil
	s2 := open(t, f.reg, "lead", opts)
	if r := call(t, s2, "agent__researcher", `{"prompt":"x"}`); r.OK || !strings.Contains(r.Error, "it has no model") {
		t.Errorf("result %+v", r)
	}
}

// Seed tool-system: Spawn agents in parallel.
func TestSpawnAgentsInParallel(t *testing.T) {
	f := newFixture(decl.Agent{Name: "lead", Spawn: true, Subagents: []string{"w1", "w2"}}, decl.Agent{Name: "w1", Description: "one"}, decl.Agent{Name: "w2"}, decl.Agent{Name: "other"})
	var mu sync.Mutex
	running, both := 0, make(chan struct{})
	opts := f.opts(&events{})
	opts.Runner = runnerFunc(func(ctx context.Context, child *Session, prompt string) (string, error) {
		mu.Lock()
		running++
		if running == 2 {
			close(both)
		}
		mu.Unlock()
		<-both // each waits for the other: only a parallel run finishes
		return child.Agent() + ":" + prompt, nil
	})
	s := open(t, f.reg, "lead", opts)
	out := mustOK(t, call(t, s, decl.ToolSpawnAgents, `{"agents":[{"agent":"w1","prompt":"a"},{"agent":"w2","prompt":"b"}]}`))
	if out != `[{"agent":"w1","ok":true,"result":"w1:a"},{"agent":"w2","ok":true,"result":"w2:b"}]` {
		t.Errorf("spawn: %s", out)
	}
	if r := call(t, s, decl.ToolSpawnAgents, `{"agents":[{"agent":"other","prompt":"a"}]}`); r.OK {
		t.Error("spawned an agent that is not a sub-agent")
	}
	if out := mustOK(t, call(t, s, decl.ToolListAgents, `{}`)); out != `{"agents":[{"name":"w1","description":"one"},{"name":"w2"}]}` {
		t.Errorf("list: %s", out)
	}
}

// Seed tool-system, scenario "RouterToolProvider".
func TestRouterToolProvider(t *testing.T) {
	f := newFixture(decl.Agent{Name: "front", Router: []string{"billing", "tech"}}, decl.Agent{Name: "billing"}, decl.Agent{Name: "tech"}, decl.Agent{Name: "plain"})
	s := open(t, f.reg, "front", f.opts(&events{}))
	ti := infoOf(s.Tools(), decl.ToolHandoff)
	if ti.Kind != decl.KindRouter || ti.Namespace != "router" {
		t.Fatalf("tool %+v", ti)
	}
	if r := call(t, s, decl.ToolHandoff, `{"agent":"plain"}`); r.OK || !strings.Contains(r.Error, "not a router destination") {
		t.Errorf("result %+v", r)
	}
	// An accepted handoff switches the session and says so.
	out := mustOK(t, call(t, s, decl.ToolHandoff, `{"agent":"tech","message":"printer on fire"}`))
	if !strings.HasPrefix(out, `{"handoff_to":"tech","message":"printer on fire","switched":true,`) || s.Agent() != "tech" {
		t.Errorf("handoff: %s; agent now %q", out, s.Agent())
	}
	p := open(t, f.reg, "plain", f.opts(&events{}))
	if slices.Contains(toolNames(p.Tools()), decl.ToolHandoff) {
		t.Error("router tool registered without destinations")
	}
}

// Seed tool-system, scenario "InternalToolProvider".
func TestInternalToolProvider(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: append(useTools("summarize", "entities_get"), useRuntime(decl.ToolBatch, decl.ToolFinalReport, decl.ToolTaskStatus)...)})
	s := open(t, f.reg, "a", f.opts(&events{}))
	mustOK(t, call(t, s, decl.ToolTaskStatus, `{"status":"in-progress","done":"x","pending":"y","now":"z"}`))
	if r := call(t, s, decl.ToolTaskStatus, `{"status":"sleeping"}`); r.OK {
		t.Error("bad status accepted")
	}
	mustOK(t, call(t, s, decl.ToolFinalReport, `{"status":"success","format":"text","content":"done"}`))
	if v, _ := s.st.Load().memory.Get(MemoryFinalReport); !strings.Contains(v, `"content":"done"`) {
		t.Errorf("final report not stored: %q", v)
	}
	out := mustOK(t, call(t, s, decl.ToolBatch, `{"calls":[{"tool":"summarize","args":{"a":1}},{"tool":"entities_get","args":{"id":"2"}},{"tool":"graph_traverse","args":{}}]}`))
	var res []struct {
		Tool   string
		OK     bool
		Result string
		Error  string
	}
	json.Unmarshal([]byte(out), &res)
	if len(res) != 3 || !res[0].OK || res[0].Result != `{"a":1}` || res[1].Result != `{"id":"2"}` || res[2].OK || !strings.Contains(res[2].Error, "not allowed") {
		t.Errorf("batch: %s", out)
	}
	ti := infoOf(s.Tools(), decl.ToolFinalReport)
	if ti.Kind != decl.KindInternal || ti.Namespace != "agent" {
		t.Errorf("tool %+v", ti)
	}
}

// Seed tool-system: Timeout.
func TestTimeout(t *testing.T) {
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	f := newFixture(decl.Agent{Name: "a", Use: useTools("stuck")}).withTools(decl.Tool{Name: "stuck", Kind: decl.KindGo, Timeout: 50 * time.Millisecond,
		Go: goTool(func(ctx context.Context, _ json.RawMessage) (string, error) {
			<-stuck // ignores its context: the pipeline must still return
			return "", nil
		})})
	s := open(t, f.reg, "a", f.opts(&events{}))
	if r := call(t, s, "stuck", `{}`); r.OK || r.Error != "timeout after 50ms" {
		t.Errorf("result %+v", r)
	}
}

// Seed tool-system: Failures are results.
func TestFailuresAreResults(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: append(useTools("panics", "errs", "summarize"), useRuntime(decl.ToolBatch)...)}).withTools(
		decl.Tool{Name: "errs", Kind: decl.KindGo, Go: goTool(func(context.Context, json.RawMessage) (string, error) { return "", errBoom })},
		decl.Tool{Name: "panics", Kind: decl.KindGo, Go: goTool(func(context.Context, json.RawMessage) (string, error) { panic("kaboom") })},
	)
	f.reg.Defaults.ToolTimeout = 0 // the in-process fast path recovers too
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	if r := call(t, s, "panics", `{}`); r.OK || r.Error != "tool panicked: kaboom" {
		t.Errorf("panic: %+v", r)
	}
	if r := call(t, s, "errs", `{}`); r.OK || r.Error != "boom" {
		t.Errorf("error: %+v", r)
	}
	if e := ev.requireOne(t, EventToolCall, "tool", "errs"); e.Level != slog.LevelWarn || e.Attrs["status"] != "failed" || e.Attrs["error"] != "boom" {
		t.Errorf("failed call event %+v", e)
	}
	for _, bad := range []string{`{"calls":`, `[1,2`, `nope`} {
		if r := call(t, s, decl.ToolBatch, bad); r.OK || !strings.Contains(r.Error, "invalid") {
			t.Errorf("bad JSON %q: %+v", bad, r)
		}
	}
}

// Seed tool-system: Response cache.
func TestResponseCache(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}})
	s := open(t, f.reg, "a", f.opts(&events{}))
	n := 0
	st := s.st.Load()
	up := st.ups["github"].up
	st.ups["github"].up = countingUpstream{up, &n}
	for range 3 {
		mustOK(t, call(t, s, "github__search_code", `{"q":"same"}`))
	}
	mustOK(t, call(t, s, "github__search_code", `{"q":"other"}`))
	if n != 2 {
		t.Errorf("upstream called %d times; want 2 (cache TTL 5m)", n)
	}
}

type countingUpstream struct {
	Upstream
	n *int
}

func (u countingUpstream) Call(ctx context.Context, tool string, args json.RawMessage) (UpstreamResult, error) {
	*u.n++
	return u.Upstream.Call(ctx, tool, args)
}

// Seed tool-system: Size limit stores output.
func TestSizeLimitStoresOutput(t *testing.T) {
	big := strings.Repeat("line of output\n", 2000) // 30000 bytes
	f := newFixture(decl.Agent{Name: "a", Use: append(useTools("big"), useRuntime(decl.ToolOutputRead)...)}).withTools(decl.Tool{Name: "big", Kind: decl.KindGo,
		Go: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(big), nil }})
	f.reg.Defaults.ResponseMaxBytes = 10000
	s := open(t, f.reg, "a", f.opts(&events{}))
	out := mustOK(t, call(t, s, "big", `{}`))
	var h struct {
		ToolOutput pipeline.ToolOutput `json:"tool_output"`
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if h.ToolOutput.Reason != "size_limit_exceeded" || h.ToolOutput.Bytes != len(big) || h.ToolOutput.Lines != 2000 || h.ToolOutput.Handle == "" {
		t.Errorf("handle %+v", h.ToolOutput)
	}
	var got strings.Builder
	offset := 0
	for {
		page := mustOK(t, call(t, s, decl.ToolOutputRead, fmt.Sprintf(`{"handle":%q,"offset":%d}`, h.ToolOutput.Handle, offset)))
		if len(page) > 10000 {
			t.Fatalf("page of %d bytes over the cap", len(page))
		}
		var p struct {
			Content    string
			NextOffset int `json:"next_offset"`
			EOF        bool
		}
		json.Unmarshal([]byte(page), &p)
		got.WriteString(p.Content)
		offset = p.NextOffset
		if p.EOF {
			break
		}
	}
	if got.String() != big {
		t.Error("paged output differs from the original")
	}
	for _, bad := range []string{`{"handle":"../../etc/passwd"}`, fmt.Sprintf(`{"handle":%q,"offset":99999999}`, h.ToolOutput.Handle)} {
		if r := call(t, s, decl.ToolOutputRead, bad); r.OK {
			t.Errorf("%s: %+v", bad, r)
		}
	}
	dir := s.st.Load().spill.Dir()
	s.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("spill dir %s left behind", dir)
	}
}

// Seed tool-system: Budget exceeded.
func TestBudgetExceeded(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("summarize")})
	f.reg.Defaults.ContextBudget = 10 // tokens: 40 characters
	s := open(t, f.reg, "a", f.opts(&events{}))
	// summarize echoes its arguments: {"t":"…"} is 8 characters plus the text
	mustOK(t, call(t, s, "summarize", `{"t":"`+strings.Repeat("x", 12)+`"}`)) // 5 tokens
	r := call(t, s, "summarize", `{"t":"`+strings.Repeat("y", 20)+`"}`)       // 7 more: 12 > 10
	if r.OK || r.Error != "context window budget exceeded" || r.Result != "" {
		t.Errorf("result %+v", r)
	}
	mustOK(t, call(t, s, "summarize", `{"t":""}`)) // 2 more: 7
}

// Seed tool-system, scenario "RestProvider".
func TestRestProvider(t *testing.T) {
	var gotPath, gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAuth = r.URL.Path, r.Header.Get("Authorization")
		fmt.Fprint(w, `{"temp":21}`)
	}))
	defer srv.Close()
	f := newFixture(decl.Agent{Name: "a", Use: useTools("weather")})
	f.reg.Tools[slices.IndexFunc(f.reg.Tools, func(t decl.Tool) bool { return t.Name == "weather" })].REST.URL = decl.Value{{Env: "WEATHER_BASE"}, {Lit: "/v1/{city}"}}
	opts := f.opts(&events{})
	opts.Getenv = func(k string) (string, bool) {
		switch k {
		case "WEATHER_BASE":
			return srv.URL, true
		case "WEATHER_KEY":
			return "k3y", true
		}
		return "", false
	}
	s := open(t, f.reg, "a", opts)
	r := call(t, s, "weather", `{"city":"Oslo"}`)
	if !r.OK || !strings.Contains(r.Result, `"temp":21`) || gotPath != "/v1/Oslo" || gotAuth != "Bearer k3y" || r.Kind != decl.KindREST || r.Namespace != "rest" {
		t.Errorf("result %+v path %q auth %q", r, gotPath, gotAuth)
	}
	opts.Getenv = func(k string) (string, bool) {
		if k == "WEATHER_BASE" {
			return srv.URL, true
		}
		return "", false
	}
	s2 := open(t, f.reg, "a", opts)
	if r := call(t, s2, "weather", `{"city":"Oslo"}`); r.OK || !strings.Contains(r.Error, "WEATHER_KEY") || !strings.Contains(r.Error, `"weather"`) {
		t.Errorf("missing env: %+v", r)
	}
}

// The seed's queue scenario at scale: 10,000 concurrent calls through a
// queue of concurrency 3.
//
// Seed tool-system, scenario "Queue Management".
func TestQueueManagement(t *testing.T) {
	var cur, peak, done atomic.Int64
	f := newFixture(decl.Agent{Name: "a", Use: useTools("limited")}).withTools(decl.Tool{Name: "limited", Kind: decl.KindGo, Queue: "github",
		Go: goTool(func(context.Context, json.RawMessage) (string, error) {
			n := cur.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			runtime.Gosched()
			cur.Add(-1)
			done.Add(1)
			return "ok", nil
		})})
	f.reg.Defaults.ToolTimeout = 0
	s := open(t, f.reg, "a", f.opts(&events{}))
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 10000 {
		wg.Go(func() {
			if r := s.Call(context.Background(), "limited", json.RawMessage(`{}`)); !r.OK {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if peak.Load() > 3 || done.Load() != 10000 || failed.Load() != 0 {
		t.Errorf("peak %d (limit 3), completed %d, failed %d", peak.Load(), done.Load(), failed.Load())
	}
	if peak.Load() < 2 {
		t.Logf("peak concurrency only %d", peak.Load())
	}
}

// Seed tool-system: Queue waiters cancellable.
func TestQueueWaitersCancellable(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	hold := make(chan struct{})
	var holding sync.WaitGroup
	holding.Add(3)
	f := newFixture(decl.Agent{Name: "a", Use: useTools("held")}, decl.Agent{Name: "b"}).withTools(decl.Tool{Name: "held", Kind: decl.KindGo, Queue: "github",
		Go: goTool(func(context.Context, json.RawMessage) (string, error) {
			holding.Done()
			<-hold
			return "ok", nil
		})})
	f.reg.Defaults.ToolTimeout = 0
	s, _ := Open(context.Background(), f.reg, "a", f.opts(&events{}))
	var holders sync.WaitGroup
	for range 3 {
		holders.Go(func() { call(t, s, "held", `{}`) })
	}
	holding.Wait() // the queue is full
	ctx, cancel := context.WithCancel(context.Background())
	var waiters sync.WaitGroup
	var errs atomic.Int64
	for range 100 {
		waiters.Go(func() {
			if r := s.Call(ctx, "held", json.RawMessage(`{}`)); !r.OK && strings.Contains(r.Error, "waiting for queue") {
				errs.Add(1)
			}
		})
	}
	cancel()
	waiters.Wait() // returns while the holders still hold every slot
	if errs.Load() != 100 {
		t.Errorf("%d of 100 cancelled waiters freed with a queue error", errs.Load())
	}
	close(hold)
	holders.Wait()
	s.Close()
}

// Seed tool-system, scenario "Tool Namespacing".
func TestToolNamespacing(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: append([]decl.Use{{Kind: decl.UseServer, Name: "github"}}, useRuntime(decl.OptInTools...)...), Subagents: []string{"b"}, Router: []string{"b"}}, decl.Agent{Name: "b"})
	s := open(t, f.reg, "a", f.opts(&events{}))
	want := map[string]string{
		"github__search_code": "github", "agent__b": "subagent", decl.ToolFinalReport: "agent", decl.ToolHandoff: "router",
	}
	for name, ns := range want {
		if got := infoOf(s.Tools(), name).Namespace; got != ns {
			t.Errorf("%s: namespace %q, want %q", name, got, ns)
		}
	}
	if got := decl.ExposedName("my.server", "__", "get/file"); got != "my_server__get_file" {
		t.Errorf("sanitised %q", got)
	}
	if got := decl.ExposedName("s", "__", strings.Repeat("x", 100)); len(got) != 64 {
		t.Errorf("not truncated: %d", len(got))
	}
}

// Seed tool-system: Lock drift.
func TestLockDrift(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}})
	ev := &events{}
	open(t, f.reg, "a", f.opts(ev))
	e := ev.requireOne(t, EventLockDrift, "server", "github")
	// locked: search_code, get_file_contents; live adds get_file_history and
	// changes both descriptions
	if e.Attrs["added"] != "[get_file_history]" || e.Attrs["changed"] != "[get_file_contents search_code]" {
		t.Errorf("drift %+v", e.Attrs)
	}
}

func TestSessionToolsSortedAndStable(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("*"), Subagents: []string{"b"}}, decl.Agent{Name: "b"})
	s := open(t, f.reg, "a", f.opts(&events{}))
	names := toolNames(s.Tools())
	if !slices.IsSorted(names) {
		t.Errorf("not sorted: %v", names)
	}
	s2 := open(t, f.reg, "a", f.opts(&events{}))
	if diff := cmp.Diff(s.Tools(), s2.Tools()); diff != "" {
		t.Errorf("two sessions of one agent differ:\n%s", diff)
	}
}

func TestCallGoStringResultIsText(t *testing.T) {
	cases := []struct {
		name string
		out  string
		want string
	}{
		{"string", `"line one\nline \"two\""`, "line one\nline \"two\""},
		{"object", `{"a":1}`, `{"a":1}`},
		{"number", `42`, `42`},
		{"empty", ``, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(c.out), nil }
			got, err := callGo(context.Background(), fn, json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("callGo = %q, want %q", got, c.want)
			}
		})
	}
}
