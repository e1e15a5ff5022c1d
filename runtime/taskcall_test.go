package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Task calls are linked in this test binary, as runtime/tasks links them
// in an agent's.
func init() { LinkTaskCalls() }

// taskUpstream is a server that takes task calls: it creates a task for
// every call, and notes what it was sent.
type taskUpstream struct {
	Upstream
	mu   sync.Mutex
	sent []string
}

func (u *taskUpstream) note(s string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sent = append(u.sent, s)
}

func (u *taskUpstream) seen() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.sent...)
}

func (u *taskUpstream) ServesTasks() bool { return true }

func (u *taskUpstream) CallAsTask(_ context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	u.note("task " + tool + " " + string(args))
	return json.RawMessage(`{"resultType":"task","taskId":"up-1","status":"working","ttlMs":60000}`), nil
}

func (u *taskUpstream) SendTask(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	u.note(method + " " + string(params))
	return json.RawMessage(`{"resultType":"complete","taskId":"up-1","status":"working"}`), nil
}

// taskConnector makes every server a taskUpstream: what the runtime
// sends as tasks depends on the spec alone.
type taskConnector struct {
	*memConnector
	mu  *sync.Mutex
	ups map[string]*taskUpstream
}

func (c taskConnector) Acquire(ctx context.Context, srv *decl.Server, getenv func(string) (string, bool)) (Upstream, error) {
	u, err := c.memConnector.Acquire(ctx, srv, getenv)
	if err != nil {
		return nil, err
	}
	tu := &taskUpstream{Upstream: u}
	c.mu.Lock()
	c.ups[srv.Name] = tu
	c.mu.Unlock()
	return tu, nil
}

func (c taskConnector) up(name string) *taskUpstream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ups[name]
}

// A task call of an upstream tool runs the pipeline and then goes to the
// server as a task; a call the pipeline refuses never reaches it; the
// collected result goes through the output steps (scrubbed, capped,
// budget charged when asked); a server block without tasks = true takes
// no task calls.
func TestTaskCallThroughPipeline(t *testing.T) {
	const token = "gho_TASK5555secret"
	conn := taskConnector{memConnector: newMemConnector(), mu: &sync.Mutex{}, ups: map[string]*taskUpstream{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "w", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "forecast", InputSchema: json.RawMessage(weatherSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil
		})
	conn.add("w", srv)
	conn.add("plain", srv)
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, ResponseMaxBytes: 200, ContextBudget: 1000},
		Servers: []decl.Server{
			{Name: "w", Transport: "stdio", Trusted: true, Tasks: true,
				Env: []decl.KeyValue{{Key: "GITHUB_TOKEN", Value: decl.Value{{Env: "GITHUB_TOKEN"}}}}},
			{Name: "plain", Transport: "stdio", Trusted: true},
		},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "w"}, {Kind: decl.UseServer, Name: "plain"}}}},
	}
	ev := &events{}
	s := open(t, reg, "a", Options{Logger: ev.logger(), Connector: conn, Getenv: envMap(map[string]string{"GITHUB_TOKEN": token})})
	ctx := context.Background()

	if !s.TakesTasks(ctx, "w__forecast") || s.TakesTasks(ctx, "plain__forecast") || s.TakesTasks(ctx, "nope") {
		t.Fatalf("TakesTasks: w %v plain %v nope %v; want true false false",
			s.TakesTasks(ctx, "w__forecast"), s.TakesTasks(ctx, "plain__forecast"), s.TakesTasks(ctx, "nope"))
	}

	tc := &TaskCall{}
	r := s.Call(WithTaskCall(ctx, tc), "w__forecast", json.RawMessage(`{"city":"Oslo"}`))
	if !r.OK || tc.Server != "w" || !strings.Contains(string(tc.Created), `"taskId":"up-1"`) {
		t.Fatalf("task call: %+v, mark %+v", r, tc)
	}
	ev.requireOne(t, EventToolCall, "tool", "w__forecast", "server", "w", "status", "ok")

	bad := &TaskCall{}
	if r := s.Call(WithTaskCall(ctx, bad), "w__forecast", json.RawMessage(`{"city":7}`)); r.OK || bad.Created != nil ||
		!strings.Contains(r.Error, `invalid arguments for tool "w__forecast"`) {
		t.Fatalf("bad arguments: %+v, mark %+v", r, bad)
	}
	if sent := conn.up("w").seen(); len(sent) != 1 {
		t.Fatalf("the server was sent %q; want the one valid task call", sent)
	}

	if _, err := s.SendTask(ctx, "w", "tasks/get", json.RawMessage(`{"taskId":"up-1"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendTask(ctx, "plain", "tasks/get", json.RawMessage(`{"taskId":"up-1"}`)); err == nil {
		t.Error("SendTask to a server without tasks = true")
	}

	// collected: scrubbed, cut to the size cap, charged once
	result := json.RawMessage(`{"content":[{"type":"text","text":"token ` + token + ` ` + strings.Repeat("y", 300) + `"}]}`)
	got := s.TaskResult(ctx, "w__forecast", result, true)
	if !got.OK || strings.Contains(got.Result, "TASK5555") || !strings.Contains(got.Result, "[output truncated") {
		t.Fatalf("collected: %+v", got)
	}
	st := s.st.Load()
	used := st.budget.Used()
	if used == 0 {
		t.Fatal("the first collection charged nothing")
	}
	if again := s.TaskResult(ctx, "w__forecast", result, false); again.Result != got.Result || st.budget.Used() != used {
		t.Errorf("collected again: %q, budget %d → %d", again.Result, used, st.budget.Used())
	}
	if bad := s.TaskResult(ctx, "w__forecast", json.RawMessage(`{"content":`), true); bad.OK {
		t.Errorf("unreadable result collected: %+v", bad)
	}
}
