package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// events collects slog records so tests can assert on event names.
type events struct {
	mu   sync.Mutex
	recs []record
	seen chan struct{} // signalled on every record
}

// waitFor blocks until an event with the name (and attributes) arrived.
func (e *events) waitFor(name string, attrs ...string) record {
	e.mu.Lock()
	if e.seen == nil {
		e.seen = make(chan struct{}, 1)
	}
	seen := e.seen
	e.mu.Unlock()
	for {
		if got := e.named(name, attrs...); len(got) > 0 {
			return got[0]
		}
		<-seen
	}
}

type record struct {
	Level slog.Level
	Name  string
	Attrs map[string]string
}

func (e *events) handler() slog.Handler { return eventHandler{e, nil} }
func (e *events) logger() *slog.Logger  { return slog.New(e.handler()) }

type eventHandler struct {
	e     *events
	attrs []slog.Attr
}

func (h eventHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h eventHandler) Handle(_ context.Context, r slog.Record) error {
	ev := record{Level: r.Level, Name: r.Message, Attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool { ev.Attrs[a.Key] = a.Value.String(); return true })
	h.e.mu.Lock()
	h.e.recs = append(h.e.recs, ev)
	if h.e.seen != nil {
		select {
		case h.e.seen <- struct{}{}:
		default:
		}
	}
	h.e.mu.Unlock()
	return nil
}
func (h eventHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return eventHandler{h.e, append(h.attrs, as...)}
}
func (h eventHandler) WithGroup(string) slog.Handler { return h }

// named returns the events with a name, optionally filtered by attributes.
func (e *events) named(name string, attrs ...string) []record {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []record
next:
	for _, r := range e.recs {
		if r.Name != name {
			continue
		}
		for i := 0; i+1 < len(attrs); i += 2 {
			if r.Attrs[attrs[i]] != attrs[i+1] {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

func (e *events) requireOne(t *testing.T, name string, attrs ...string) record {
	t.Helper()
	got := e.named(name, attrs...)
	if len(got) == 0 {
		e.mu.Lock()
		defer e.mu.Unlock()
		var all []string
		for _, r := range e.recs {
			all = append(all, fmt.Sprintf("%s%v", r.Name, r.Attrs))
		}
		t.Fatalf("no %s event with %v; events:\n%s", name, attrs, strings.Join(all, "\n"))
	}
	return got[0]
}

// memConnector serves in-process go-sdk MCP servers over in-memory
// transports: the real protocol, no processes.
type memConnector struct {
	mu       sync.Mutex
	servers  map[string]*mcp.Server
	fail     map[string]error
	acquired map[string]int
	live     map[string]int
	needs    map[string]HostNeeds // "server/tool" → what the tool needs of a host (mcpconn learns it)
}

func newMemConnector() *memConnector {
	return &memConnector{servers: map[string]*mcp.Server{}, fail: map[string]error{}, acquired: map[string]int{}, live: map[string]int{}}
}

func (c *memConnector) add(name string, s *mcp.Server) { c.servers[name] = s }

func (c *memConnector) count(name string) (acquired, live int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acquired[name], c.live[name]
}

func (c *memConnector) Acquire(ctx context.Context, srv *decl.Server, getenv func(string) (string, bool)) (Upstream, error) {
	c.mu.Lock()
	s, err := c.servers[srv.Name], c.fail[srv.Name]
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("server %q: no such in-process server", srv.Name)
	}
	for _, kv := range srv.Env {
		if _, err := kv.Value.Resolve(getenv); err != nil {
			return nil, fmt.Errorf("server %q: env %s: %v", srv.Name, kv.Key, err)
		}
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	u := &memUpstream{c: c, name: srv.Name, ss: ss, watchers: map[int]func(){}}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgen-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { go u.refresh() },
	})
	// A 2026-07-28 session subscribes to list changes beside its first
	// tools/list (go-sdk does not wait for the server to take it): list
	// once the server has acknowledged (internal/mcpconn lists again then), or a
	// change made in between is never seen.
	subscribed := make(chan struct{})
	var once sync.Once
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				once.Do(func() { close(subscribed) })
			}
			return next(ctx, method, req)
		}
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, err
	}
	u.cs = cs
	if r := cs.InitializeResult(); r.ProtocolVersion >= "2026-07-28" && r.Capabilities.Tools != nil && r.Capabilities.Tools.ListChanged {
		select {
		case <-subscribed:
		case <-ctx.Done():
			cs.Close()
			return nil, ctx.Err()
		}
	}
	if err := u.list(ctx); err != nil {
		cs.Close()
		return nil, err
	}
	c.mu.Lock()
	c.acquired[srv.Name]++
	c.live[srv.Name]++
	c.mu.Unlock()
	return u, nil
}

type memUpstream struct {
	c    *memConnector
	name string
	cs   *mcp.ClientSession
	ss   *mcp.ServerSession

	mu       sync.Mutex
	tools    []UpstreamTool
	watchers map[int]func()
	next     int
	released bool
}

func (u *memUpstream) list(ctx context.Context) error {
	var tools []UpstreamTool
	for t, err := range u.cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		schema, _ := json.Marshal(t.InputSchema)
		ut := UpstreamTool{Name: t.Name, Description: t.Description, InputSchema: schema}
		u.c.mu.Lock()
		ut.Needs = u.c.needs[u.name+"/"+t.Name]
		u.c.mu.Unlock()
		if t.OutputSchema != nil {
			ut.OutputSchema, _ = json.Marshal(t.OutputSchema)
		}
		tools = append(tools, ut)
	}
	u.mu.Lock()
	u.tools = tools
	u.mu.Unlock()
	return nil
}

func (u *memUpstream) refresh() {
	if u.list(context.Background()) != nil {
		return
	}
	u.mu.Lock()
	fns := make([]func(), 0, len(u.watchers))
	for _, fn := range u.watchers {
		fns = append(fns, fn)
	}
	u.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

func (u *memUpstream) Tools() []UpstreamTool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tools
}

func (u *memUpstream) Call(ctx context.Context, tool string, args json.RawMessage) (UpstreamResult, error) {
	var a map[string]any
	if err := json.Unmarshal(args, &a); err != nil {
		return UpstreamResult{}, err
	}
	res, err := u.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
	if err != nil {
		return UpstreamResult{}, err
	}
	r := UpstreamResult{Content: res.Content, IsError: res.IsError, Meta: res.Meta}
	if res.StructuredContent != nil {
		r.Structured, _ = json.Marshal(res.StructuredContent)
	}
	return r, nil
}

func (u *memUpstream) Instructions() string {
	if r := u.cs.InitializeResult(); r != nil {
		return r.Instructions
	}
	return ""
}

func (u *memUpstream) Health() Health { return HealthGreen }

func (u *memUpstream) OnToolsChanged(fn func()) func() {
	u.mu.Lock()
	defer u.mu.Unlock()
	id := u.next
	u.next++
	u.watchers[id] = fn
	return func() {
		u.mu.Lock()
		defer u.mu.Unlock()
		delete(u.watchers, id)
	}
}

func (u *memUpstream) Release() {
	u.mu.Lock()
	if u.released {
		u.mu.Unlock()
		return
	}
	u.released = true
	u.mu.Unlock()
	u.cs.Close()
	u.ss.Wait()
	u.c.mu.Lock()
	u.c.live[u.name]--
	u.c.mu.Unlock()
}

// mcpServer builds a go-sdk server whose tools echo their name and args.
func mcpServer(instructions string, tools ...string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, &mcp.ServerOptions{Instructions: instructions})
	for _, name := range tools {
		addEchoTool(s, name)
	}
	return s
}

func addEchoTool(s *mcp.Server, name string) {
	s.AddTool(&mcp.Tool{
		Name: name, Description: "The " + strings.ReplaceAll(name, "_", " ") + " tool.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if name == "fail" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it failed"}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ":" + string(req.Params.Arguments)}}}, nil
	})
}

var errBoom = errors.New("boom")

// goTool wraps a function as a GoFunc returning a JSON string.
func goTool(fn func(ctx context.Context, args json.RawMessage) (string, error)) decl.GoFunc {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		s, err := fn(ctx, args)
		if err != nil {
			return nil, err
		}
		return json.Marshal(s)
	}
}

func echoGo() decl.GoFunc {
	return func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(append([]byte(nil), args...)), nil
	}
}

// testHosts holds one Host per test: the sessions a test opens with open
// share pools and connections, as a host program's do.
var testHosts sync.Map // *testing.T → *Host

func testHost(t *testing.T) *Host {
	if h, ok := testHosts.Load(t); ok {
		return h.(*Host)
	}
	h := NewHost(slog.New(slog.DiscardHandler))
	testHosts.Store(t, h)
	t.Cleanup(func() { // after the sessions' own cleanups (last in, first out)
		h.Close()
		testHosts.Delete(t)
	})
	return h
}

// poolOf is the test host's pool of reg.
func poolOf(t *testing.T, reg *Registry) *Pool {
	p, err := testHost(t).pool(reg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func open(t *testing.T, reg *Registry, agent string, opts Options) *Session {
	t.Helper()
	s, err := testHost(t).Open(context.Background(), reg, agent, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", agent, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func toolNames(tools []ToolInfo) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// poolNames lists the tools of a session that came from the pool (not the
// runtime's own tools).
func poolNames(s *Session) []string {
	var out []string
	for _, t := range s.Tools() {
		switch t.Kind {
		case decl.KindGo, decl.KindBuiltin, decl.KindREST, decl.KindMCP:
			out = append(out, t.Name)
		}
	}
	return out
}

func call(t *testing.T, s *Session, name, args string) Result {
	t.Helper()
	return s.Call(context.Background(), name, json.RawMessage(args))
}

func mustOK(t *testing.T, r Result) string {
	t.Helper()
	if !r.OK {
		t.Fatalf("call failed: %s", r.Error)
	}
	return r.Result
}

type errString string

func (e errString) Error() string { return string(e) }

// recordingRunner records which agent ran which child at what depth.
type recordingRunner struct {
	mu    sync.Mutex
	runs  []string
	inner func(ctx context.Context, child *Session, prompt string) (string, error)
}

func (r *recordingRunner) Run(ctx context.Context, child *Session, prompt string) (string, error) {
	r.mu.Lock()
	parent := "lead"
	if child.opts.Depth > 1 {
		parent = "mid"
	}
	r.runs = append(r.runs, fmt.Sprintf("%s>%s@%d", parent, child.Agent(), child.opts.Depth))
	r.mu.Unlock()
	if r.inner != nil {
		return r.inner(ctx, child, prompt)
	}
	return "ran " + child.Agent() + ": " + prompt, nil
}

func (r *recordingRunner) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.runs...)
}

func workspace(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "workspace", "out"), 0o755)
	os.WriteFile(filepath.Join(dir, "workspace", "notes.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret\n"), 0o644)
	return dir
}

func infoOf(tools []ToolInfo, name string) ToolInfo {
	for _, t := range tools {
		if t.Name == name {
			return t
		}
	}
	return ToolInfo{}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// withTools adds Go tools to a fixture registry, keeping Tools sorted.
func (f *fixture) withTools(tools ...decl.Tool) *fixture {
	f.reg.Tools = append(f.reg.Tools, tools...)
	slices.SortFunc(f.reg.Tools, func(a, b decl.Tool) int { return strings.Compare(a.Name, b.Name) })
	return f
}

type runnerFunc func(ctx context.Context, child *Session, prompt string) (string, error)

func (f runnerFunc) Run(ctx context.Context, child *Session, prompt string) (string, error) {
	return f(ctx, child, prompt)
}
