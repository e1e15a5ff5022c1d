package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// upstreamAgent is an upstream server that takes tasks, made of the
// agent's own task machinery on a board of its own (what an upstream
// agent binary runs): its calls run until released or cancelled.
type upstreamAgent struct {
	b       *Board
	release chan struct{}
	mu      sync.Mutex
	seen    []string // requests it got: method and params
}

func newUpstreamAgent() *upstreamAgent {
	return &upstreamAgent{b: NewBoard(store.NewMemory(), 0), release: make(chan struct{})}
}

func (u *upstreamAgent) note(method string, params json.RawMessage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.seen = append(u.seen, method+" "+string(params))
}

func (u *upstreamAgent) CallAsTask(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, string, bool, error) {
	u.note("tools/call "+tool, args)
	if tool == "up__quick" {
		return json.RawMessage(`{"content":[{"type":"text","text":"at once"}],"resultType":"complete"}`), "up", false, nil
	}
	if tool != "up__slow" {
		return nil, "", false, nil
	}
	rec, err := u.b.Create(ctx, "", 30*time.Minute, 500*time.Millisecond)
	if err != nil {
		return nil, "", false, err
	}
	start(u.b, rec, nil, func(ctx context.Context, _ mcpconn.Caller) (*mcp.CallToolResult, error) {
		select {
		case <-u.release:
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done: " + string(args)}}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, func(context.CancelFunc) func() { return func() {} }, slog.Default())
	t := wire(rec, "task")
	t.Meta = mcp.Meta{"upstream.example/note": "kept"}
	v, err := json.Marshal(t)
	return v, "up", true, err
}

func (u *upstreamAgent) Send(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error) {
	u.note(method, params)
	if server != "up" {
		return nil, errors.New("no server " + server)
	}
	var p UpdateParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	var res any = &Ack{ResultType: "complete"}
	var err error
	switch method {
	case MethodGet:
		var r *Record
		if r, err = u.b.Get(ctx, p.TaskID, ""); err == nil {
			res, err = detailed(ctx, u.b, r)
		}
	case MethodCancel:
		err = u.b.Cancel(ctx, p.TaskID, "")
	case MethodUpdate:
		err = u.b.Answer(ctx, p.TaskID, "", p.InputResponses)
	}
	if err != nil {
		return nil, storeError(p.TaskID, err)
	}
	return json.Marshal(res)
}

// proxySession is an agent session whose upstream server is u: it takes
// task calls of up__slow and up__quick.
type proxySession struct {
	u       *upstreamAgent
	charged *[]bool // TaskResult's charge, per collection
}

func (proxySession) Agent() string             { return "proxy" }
func (proxySession) Tools() []runtime.ToolInfo { return nil }
func (proxySession) Call(context.Context, string, json.RawMessage) runtime.Result {
	return runtime.Result{}
}
func (proxySession) Instructions() []string  { return nil }
func (proxySession) Subscribe(func()) func() { return func() {} }
func (proxySession) TakesTasks(_ context.Context, tool string) bool {
	return tool == "up__slow" || tool == "up__quick"
}
func (s proxySession) SendTask(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error) {
	return s.u.Send(ctx, server, method, params)
}

// TaskResult marks what it collected, as a session's output steps would
// change it.
func (s proxySession) TaskResult(_ context.Context, tool string, raw json.RawMessage, charge bool) runtime.Result {
	if s.charged != nil {
		*s.charged = append(*s.charged, charge)
	}
	r, err := mcpconn.DecodeResult(raw)
	if err != nil {
		return runtime.Result{Error: err.Error()}
	}
	r.Content = append(r.Content, &mcp.TextContent{Text: "checked as " + tool})
	return runtime.Result{OK: true, Rich: &r, Kind: decl.KindMCP, Namespace: "up"}
}

// run is a session's run of a task call: through its pipeline (here
// nothing) to the upstream, which fills the task call's mark.
func (s proxySession) run(tool string) func(context.Context, mcpconn.Caller) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, _ mcpconn.Caller) (*mcp.CallToolResult, error) {
		tc := runtime.TaskCallOf(ctx)
		if tc == nil {
			return nil, errors.New("ran without the task call's mark")
		}
		raw, server, ok, err := s.u.CallAsTask(ctx, tool, json.RawMessage(`{"n":7}`))
		switch {
		case err != nil:
			return nil, err
		case ok:
			tc.Created, tc.Server = raw, server
			return &mcp.CallToolResult{}, nil
		}
		var res mcp.CallToolResult
		err = json.Unmarshal(raw, &res)
		return &res, err
	}
}

var withTasks = mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{ExtensionID: map[string]any{}}}}

// host connects a client that declares the extension to a server with
// the extension installed for sess.
func host(t *testing.T, e *extension, sess serve.Session) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ServerOptions{}
	e.Options(sess, opts)
	srv := mcp.NewServer(&mcp.Implementation{Name: "proxy"}, opts)
	e.Install(sess, srv)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(ExtensionID, map[string]any{})
	c := mcp.NewClient(&mcp.Implementation{Name: "host"}, &mcp.ClientOptions{Capabilities: caps})
	for _, m := range []string{MethodGet, MethodCancel} {
		mustDo(t, mcp.AddSendingCustomMethod[*TaskParams, *rawResult](c, m))
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// rawResult is a result as the host read it.
type rawResult struct {
	mcp.ResultBase
	m map[string]json.RawMessage
}

func (r *rawResult) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &r.m) }

func (r *rawResult) str(k string) string {
	var s string
	_ = json.Unmarshal(r.m[k], &s)
	return s
}

func hostCall(e *extension, sess proxySession, tool string, meta mcp.Meta) (mcp.Result, bool, error) {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: meta, Name: tool, Arguments: json.RawMessage(`{"n":7}`)}}
	call := &serve.Call{Request: req, Tool: &runtime.ToolInfo{Name: tool, Kind: decl.KindMCP, Namespace: "up"},
		Hold: func(context.CancelFunc) func() { return func() {} }, Run: sess.run(tool)}
	return e.TakeCall(context.Background(), sess, call)
}

func decode(t *testing.T, res mcp.Result) map[string]json.RawMessage {
	t.Helper()
	v, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	mustDo(t, json.Unmarshal(v, &m))
	return m
}

// A host's task call of an upstream tool that takes tasks becomes the
// upstream's task under an id of the agent's; the host's tasks/get and
// tasks/cancel of it go to the upstream with the upstream's id, and its
// answers come back unchanged but for the id.
func TestUpstreamTaskPassesThrough(t *testing.T) {
	up := newUpstreamAgent()
	var charged []bool
	sess := proxySession{u: up, charged: &charged}
	e := &extension{boards: map[store.Store]*Board{}}
	cs := host(t, e, sess)
	ctx := context.Background()

	// create
	res, taken, err := hostCall(e, sess, "up__slow", withTasks)
	if err != nil || !taken {
		t.Fatalf("task call: taken %v, %v", taken, err)
	}
	created := decode(t, res)
	var id string
	mustDo(t, json.Unmarshal(created["taskId"], &id))
	if string(created["resultType"]) != `"task"` || !strings.Contains(string(created["_meta"]), "kept") {
		t.Fatalf("created task not passed through: %s", mustJSON(created))
	}
	rec, err := e.board(sess).Get(ctx, id, "")
	mustDo(t, err)
	if rec.Route == nil || rec.Route.Server != "up" || rec.Route.ID == id || rec.Route.Tool != "up__slow" {
		t.Fatalf("route %+v: want server up and the upstream's own id", rec.Route)
	}
	upID := rec.Route.ID

	// poll: working, read upstream
	got, err := mcp.CallCustomMethod[*TaskParams, *rawResult](ctx, cs, MethodGet, &TaskParams{TaskID: id})
	mustDo(t, err)
	if got.str("taskId") != id || got.str("status") != string(Working) {
		t.Fatalf("tasks/get: %s; want %s working", mustJSON(got.m), id)
	}
	// cancel goes upstream; the upstream's run ends
	_, err = mcp.CallCustomMethod[*TaskParams, *rawResult](ctx, cs, MethodCancel, &TaskParams{TaskID: id})
	mustDo(t, err)
	upRec, err := up.b.Get(ctx, upID, "")
	mustDo(t, err)
	if upRec.Status != Cancelled {
		t.Fatalf("upstream task after the host's cancel: %s", upRec.Status)
	}
	got, err = mcp.CallCustomMethod[*TaskParams, *rawResult](ctx, cs, MethodGet, &TaskParams{TaskID: id})
	mustDo(t, err)
	if got.str("status") != string(Cancelled) || got.str("taskId") != id {
		t.Fatalf("tasks/get after cancel: %s", mustJSON(got.m))
	}

	// a second task: collect its result
	res, _, err = hostCall(e, sess, "up__slow", withTasks)
	mustDo(t, err)
	mustDo(t, json.Unmarshal(decode(t, res)["taskId"], &id))
	close(up.release)
	for {
		got, err = mcp.CallCustomMethod[*TaskParams, *rawResult](ctx, cs, MethodGet, &TaskParams{TaskID: id})
		mustDo(t, err)
		if Status(got.str("status")).Terminal() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got.str("status") != string(Completed) || !strings.Contains(string(got.m["result"]), `slow done: {\"n\":7}`) ||
		!strings.Contains(string(got.m["result"]), "checked as up__slow") || got.str("taskId") != id {
		t.Fatalf("collected (through the session's output steps): %s", mustJSON(got.m))
	}
	// collected again: the same result, counted once
	again, err := mcp.CallCustomMethod[*TaskParams, *rawResult](ctx, cs, MethodGet, &TaskParams{TaskID: id})
	mustDo(t, err)
	if string(again.m["result"]) != string(got.m["result"]) {
		t.Errorf("second collection: %s; first %s", again.m["result"], got.m["result"])
	}
	if len(charged) != 2 || !charged[0] || charged[1] {
		t.Errorf("budget charges per collection %v; want [true false]", charged)
	}

	// the upstream saw its own ids only
	up.mu.Lock()
	defer up.mu.Unlock()
	for _, s := range up.seen {
		if strings.Contains(s, id) {
			t.Errorf("upstream got the agent's id: %s", s)
		}
	}
}

// A host without the extension, a tool of no upstream server, and an
// upstream that answers at once: no task passes through.
func TestUpstreamNoTask(t *testing.T) {
	up := newUpstreamAgent()
	sess := proxySession{u: up}
	e := &extension{boards: map[store.Store]*Board{}}
	if _, taken, err := hostCall(e, sess, "up__slow", nil); taken || err != nil {
		t.Errorf("host without the extension: taken %v, %v", taken, err)
	}
	if _, taken, err := hostCall(e, sess, "up__plain", withTasks); taken || err != nil {
		t.Errorf("server without tasks: taken %v, %v", taken, err)
	}
	res, taken, err := hostCall(e, sess, "up__quick", withTasks)
	if !taken || err != nil {
		t.Fatalf("quick: taken %v, %v", taken, err)
	}
	if m := decode(t, res); !strings.Contains(string(m["content"]), "at once") || m["taskId"] != nil {
		t.Errorf("quick result not passed as a plain answer: %s", mustJSON(m))
	}
	if len(up.seen) != 1 { // up__quick; not the host without the extension, not a server without tasks
		t.Errorf("upstream got %q", up.seen)
	}
}

// A routed task is found through another replica (the route is on the
// store), stays its caller's, and keeps no lease of its own.
func TestAdoptRoutesFromAnyReplica(t *testing.T) {
	stores(t, func(t *testing.T, a, b store.Store) {
		ctx := context.Background()
		one, two := NewBoard(a, time.Millisecond), NewBoard(b, time.Millisecond)
		raw := json.RawMessage(`{"resultType":"task","taskId":"up-1","status":"working","ttlMs":60000,"pollIntervalMs":250,"x":{"kept":true}}`)
		r, out, err := one.Adopt(ctx, "ann", "srv", "srv__job", raw)
		mustDo(t, err)
		var m map[string]json.RawMessage
		mustDo(t, json.Unmarshal(out, &m))
		if string(m["taskId"]) != `"`+r.ID+`"` || string(m["x"]) != `{"kept":true}` || string(m["pollIntervalMs"]) != "250" {
			t.Fatalf("host's created task: %s", out)
		}
		time.Sleep(5 * time.Millisecond) // past the lease: a routed task must not read as failed
		got, err := two.Get(ctx, r.ID, "ann")
		mustDo(t, err)
		if got.Route == nil || *got.Route != (Route{Server: "srv", ID: "up-1", Tool: "srv__job"}) || got.Status != Working || got.TTL != 60000 {
			t.Fatalf("through the other replica: %+v route %+v", got, got.Route)
		}
		if _, err := two.Get(ctx, r.ID, "bob"); !errors.Is(err, ErrUnknown) {
			t.Errorf("another caller: %v; want ErrUnknown", err)
		}
	})
}

// An upstream's answer that is no task is refused with a clear error.
func TestAdoptRefusesNoTask(t *testing.T) {
	b := NewBoard(store.NewMemory(), 0)
	for _, raw := range []string{`{"resultType":"complete","content":[]}`, `{"resultType":"task"}`, `[1]`, `nul`} {
		if _, _, err := b.Adopt(context.Background(), "", "srv", "srv__job", json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), "srv") {
			t.Errorf("Adopt(%s): %v; want an error naming the server", raw, err)
		}
	}
}

// The upstream's JSON-RPC error reaches the host as it came.
func TestUpstreamErrorPassesThrough(t *testing.T) {
	r := &Record{ID: "mine", Route: &Route{Server: "srv", ID: "theirs"}}
	je := &jsonrpc.Error{Code: -32602, Message: "no such task"}
	if got := upstreamError(r, je); got != je {
		t.Errorf("jsonrpc error: %v", got)
	}
	if got := upstreamError(r, errors.New("broken pipe")); !strings.Contains(got.Error(), "srv") {
		t.Errorf("transport error: %v; want the server named", got)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
