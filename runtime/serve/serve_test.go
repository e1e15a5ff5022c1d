package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// fakeSession is a small in-memory session: "echo" returns its arguments,
// "fail" fails, "boom" panics, "load" activates "extra", and anything not
// on the surface is refused the way the runtime refuses it.
type fakeSession struct {
	mu    sync.Mutex
	tools []runtime.ToolInfo
	subs  map[int]func()
	next  int

	agent         string // "" is "fake"
	slowStarted   chan struct{}
	slowCancelled int
	closed        bool
}

func (f *fakeSession) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *fakeSession) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

func newFakeSession() *fakeSession {
	return &fakeSession{
		tools: []runtime.ToolInfo{
			{Name: "echo", Description: "Echo the arguments.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"$defs":{"x":{"type":"string"}}}`), Kind: decl.KindGo},
			{Name: "fail", Description: "Always fails.", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: decl.KindGo},
			{Name: "boom", Description: "Panics.", InputSchema: nil, Kind: decl.KindGo},
			{Name: "load", Description: "Load extra.", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: decl.KindDiscovery},
			// A schema go-sdk's AddTool would panic on.
			{Name: "slow", Description: "Waits for cancellation.", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: decl.KindGo},
			{Name: "odd", Description: "String schema.", InputSchema: json.RawMessage(`{"type":"string"}`), Kind: decl.KindMCP, Namespace: "up"},
			{Name: "ask", Description: "Asks the host's user and model at once.", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: decl.KindMCP, Namespace: "up"},
		},
		subs:        map[int]func(){},
		slowStarted: make(chan struct{}, 1),
	}
}

func (f *fakeSession) Agent() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.agent != "" {
		return f.agent
	}
	return "fake"
}

func (f *fakeSession) Tools() []runtime.ToolInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]runtime.ToolInfo(nil), f.tools...)
}

func (f *fakeSession) Instructions() []string {
	return []string{"first server says hi", "second says bye"}
}

func (f *fakeSession) Subscribe(fn func()) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := f.next
	f.next++
	f.subs[id] = fn
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.subs, id)
	}
}

func (f *fakeSession) has(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// setTools replaces the surface and notifies subscribers while holding the
// session lock, as a runtime may: the server must not call back in.
func (f *fakeSession) setTools(fn func([]runtime.ToolInfo) []runtime.ToolInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tools = fn(f.tools)
	for _, s := range f.subs {
		s()
	}
}

func (f *fakeSession) Call(ctx context.Context, name string, args json.RawMessage) runtime.Result {
	if !f.has(name) {
		return runtime.Result{Error: fmt.Sprintf("tool %q not found or not allowed for agent fake", name)}
	}
	switch name {
	case "echo":
		return runtime.Result{OK: true, Result: string(args), Kind: decl.KindGo, Latency: time.Millisecond}
	case "fail":
		return runtime.Result{Error: "fail: it always fails", Kind: decl.KindGo}
	case "boom":
		panic("provider exploded")
	case "load":
		f.setTools(func(ts []runtime.ToolInfo) []runtime.ToolInfo {
			return append(ts, runtime.ToolInfo{Name: "extra", Description: "Loaded later.", InputSchema: json.RawMessage(`{"properties":{"n":{"type":"integer"}}}`)})
		})
		return runtime.Result{OK: true, Result: `{"loaded":["extra"]}`, Kind: decl.KindDiscovery}
	case "slow":
		f.mu.Lock()
		started := f.slowStarted
		f.mu.Unlock()
		started <- struct{}{}
		<-ctx.Done()
		f.mu.Lock()
		f.slowCancelled++
		f.mu.Unlock()
		return runtime.Result{Error: "slow: " + ctx.Err().Error()}
	case "extra":
		return runtime.Result{OK: true, Result: "extra ran"}
	case "ask":
		return ask(ctx)
	}
	return runtime.Result{OK: true, Result: "ok"}
}

// client connects a go-sdk client to the server over connect and returns
// the session plus a channel that receives on every tools/list_changed.
func client(t *testing.T, connect func(*mcp.Client, *mcp.ClientSessionOptions) (*mcp.ClientSession, error)) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	return clientAt(t, "2025-11-25", connect)
}

// clientAt is client speaking one protocol revision.
func clientAt(t *testing.T, version string, connect func(*mcp.Client, *mcp.ClientSessionOptions) (*mcp.ClientSession, error)) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 16)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			// Never block: a loaded machine may not coalesce go-sdk's
			// notifications, and a blocked handler hangs the client's Close.
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := connect(c, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, changed
}

func inMemory(t *testing.T, s *Server) func(*mcp.Client, *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
	return func(c *mcp.Client, o *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.MCP().Connect(context.Background(), st, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { ss.Close() })
		return c.Connect(context.Background(), ct, o)
	}
}

// startHTTP serves s on a loopback port and returns its URL.
func startHTTP(t *testing.T, s *Server) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("ListenAndServe: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ListenAndServe after cancel: %v", err)
		}
	})
	return "http://" + addr.String() + "/mcp"
}

func overHTTP(url string) func(*mcp.Client, *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
	return func(c *mcp.Client, o *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
		return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, o)
	}
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content = %d items, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T, want text", res.Content[0])
	}
	return tc.Text
}

func listNames(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	m := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		m[tool.Name] = tool
	}
	return m
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: protocol error %v (want a result)", name, err)
	}
	return res
}

func waitChanged(t *testing.T, changed <-chan struct{}) {
	t.Helper()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the surface changed")
	}
}

// exercise runs the same conversation over any transport, in the
// revision cs speaks.
func exercise(t *testing.T, cs *mcp.ClientSession, changed <-chan struct{}) {
	exerciseAt(t, "2025-11-25", cs, changed)
}

func exerciseAt(t *testing.T, version string, cs *mcp.ClientSession, changed <-chan struct{}) {
	init := cs.InitializeResult()
	if init.ProtocolVersion != version {
		t.Errorf("protocol version = %q, want %s", init.ProtocolVersion, version)
	}
	if want := "first server says hi\n\nsecond says bye"; init.Instructions != want {
		t.Errorf("instructions = %q, want %q", init.Instructions, want)
	}
	if init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
		t.Errorf("tools capability = %+v, want listChanged", init.Capabilities.Tools)
	}

	tools := listNames(t, cs)
	for _, n := range []string{"echo", "fail", "boom", "load", "odd"} {
		if tools[n] == nil {
			t.Errorf("tools/list lacks %q", n)
		}
	}
	if tools["extra"] != nil {
		t.Error("extra listed before it was loaded")
	}
	// Raw schemas pass through: $defs survives.
	if b, _ := json.Marshal(tools["echo"].InputSchema); !strings.Contains(string(b), `"$defs"`) {
		t.Errorf("echo schema lost $defs: %s", b)
	}
	if b, _ := json.Marshal(tools["odd"].InputSchema); string(b) != `{"type":"object"}` {
		t.Errorf("odd schema = %s, want {\"type\":\"object\"}", b)
	}

	res := call(t, cs, "echo", map[string]any{"text": "hi"})
	if res.IsError || text(t, res) != `{"text":"hi"}` {
		t.Errorf("echo = %v %q", res.IsError, text(t, res))
	}
	if res.Meta["toolgen.dev/kind"] != "go" {
		t.Errorf("echo _meta = %v, want kind go", res.Meta)
	}
	if res := call(t, cs, "echo", nil); text(t, res) != `{}` {
		t.Errorf("echo without arguments got %q, want {}", text(t, res))
	}

	res = call(t, cs, "fail", nil)
	if !res.IsError || text(t, res) != "fail: it always fails" {
		t.Errorf("fail = %v %q", res.IsError, text(t, res))
	}
	res = call(t, cs, "secret_tool", map[string]any{})
	if !res.IsError || !strings.Contains(text(t, res), "not allowed") {
		t.Errorf("blocked call = %v %q, want an error result saying not allowed", res.IsError, text(t, res))
	}
	res = call(t, cs, "boom", nil)
	if !res.IsError || !strings.Contains(text(t, res), "internal error") {
		t.Errorf("panicking tool = %v %q", res.IsError, text(t, res))
	}

	// tool_load-style change: list_changed arrives, the list has the new
	// tool (schema given a type), and it can be called.
	if res := call(t, cs, "load", nil); res.IsError {
		t.Fatalf("load: %q", text(t, res))
	}
	if changed != nil { // nil: a stateless HTTP host, which gets no notifications
		waitChanged(t, changed)
	}
	tools = listNames(t, cs)
	if tools["extra"] == nil {
		t.Fatal("extra not listed after load")
	}
	if b, _ := json.Marshal(tools["extra"].InputSchema); !strings.Contains(string(b), `"type":"object"`) || !strings.Contains(string(b), `"n"`) {
		t.Errorf("extra schema = %s", b)
	}
	if res := call(t, cs, "extra", nil); res.IsError || text(t, res) != "extra ran" {
		t.Errorf("extra = %v %q", res.IsError, text(t, res))
	}
	if version >= StatelessRevision {
		return // no ping in the stateless revision
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping: %v", err)
	}
}

func TestInMemory(t *testing.T) {
	sess := newFakeSession()
	s := New(sess, Options{})
	defer s.Close()
	cs, changed := client(t, inMemory(t, s))
	exercise(t, cs, changed)
}

func TestHTTP(t *testing.T) {
	sess := newFakeSession()
	s := New(sess, Options{})
	defer s.Close()
	cs, changed := client(t, overHTTP(startHTTP(t, s)))
	exercise(t, cs, changed)
}

// The stateless revision on every transport, and a host of each revision
// on one HTTP endpoint at once.
func TestStatelessRevision(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		s := New(newFakeSession(), Options{})
		defer s.Close()
		cs, changed := clientAt(t, StatelessRevision, inMemory(t, s))
		exerciseAt(t, StatelessRevision, cs, changed)
	})
	t.Run("http", func(t *testing.T) {
		s := New(newFakeSession(), Options{})
		defer s.Close()
		url := startHTTP(t, s)
		old, _ := client(t, overHTTP(url))
		cs, changed := clientAt(t, StatelessRevision, overHTTP(url))
		exerciseAt(t, StatelessRevision, cs, nil)
		_ = changed
		if res := call(t, old, "echo", map[string]any{"n": 2}); text(t, res) != `{"n":2}` {
			t.Errorf("2025-11-25 host beside a 2026-07-28 one: echo = %q", text(t, res))
		}
		if err := old.Ping(context.Background(), nil); err != nil {
			t.Errorf("2025-11-25 host: ping: %v", err)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		s := New(newFakeSession(), Options{})
		defer s.Close()
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.ServeIO(context.Background(), sr, sw) }()
		cs, changed := clientAt(t, StatelessRevision, func(c *mcp.Client, o *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
			return c.Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, o)
		})
		exerciseAt(t, StatelessRevision, cs, changed)
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeIO = %v, want nil on client hang-up", err)
		}
	})
}

// A removed tool disappears from the list with a notification, and calling
// it afterwards is an error result.
func TestRemoveTool(t *testing.T) {
	sess := newFakeSession()
	s := New(sess, Options{})
	defer s.Close()
	cs, changed := client(t, inMemory(t, s))
	sess.setTools(func(ts []runtime.ToolInfo) []runtime.ToolInfo { return ts[1:] }) // drop echo (a Switch)
	waitChanged(t, changed)
	if listNames(t, cs)["echo"] != nil {
		t.Error("echo still listed after removal")
	}
	if res := call(t, cs, "echo", nil); !res.IsError {
		t.Error("calling a removed tool succeeded")
	}
}

// A listing right after a change reflects it even before the background
// resync ran.
func TestListAfterChangeIsCurrent(t *testing.T) {
	sess := newFakeSession()
	s := New(sess, Options{})
	defer s.Close()
	cs, _ := client(t, inMemory(t, s))
	for i := range 20 {
		name := fmt.Sprintf("t%d", i)
		sess.setTools(func(ts []runtime.ToolInfo) []runtime.ToolInfo {
			return append(ts, runtime.ToolInfo{Name: name, Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)})
		})
		if listNames(t, cs)[name] == nil {
			t.Fatalf("%s not listed right after it was added", name)
		}
	}
}

func TestRebindingGuard(t *testing.T) {
	s := New(newFakeSession(), Options{})
	defer s.Close()
	url := startHTTP(t, s)
	port := strings.TrimSuffix(strings.TrimPrefix(url, "http://127.0.0.1:"), "/mcp")
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		host, origin string
		want         int
	}{
		{"", "", http.StatusOK},
		{"localhost:" + port, "http://localhost:" + port, http.StatusOK},
		{"[::1]:" + port, "http://[::1]:" + port, http.StatusOK},
		{"evil.example:" + port, "", http.StatusForbidden},
		{"evil.example", "http://evil.example", http.StatusForbidden},
		{"", "http://evil.example", http.StatusForbidden},
		{"", "null", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %q Origin %q: status %d, want %d", tc.host, tc.origin, resp.StatusCode, tc.want)
		}
	}
}

// Cancelling the context ends HTTP serving promptly even with a client
// holding an open session (and its SSE stream).
func TestHTTPShutdown(t *testing.T) {
	s := New(newFakeSession(), Options{})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	url := "http://" + (<-addrc).String()
	cs, _ := client(t, overHTTP(url))
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ListenAndServe: %v", err)
		}
	case <-time.After(shutdownGrace + 5*time.Second):
		t.Fatal("HTTP server did not stop after cancel")
	}
}

// Stdio over pipes: EOF from the client is a clean end.
func TestServeIO(t *testing.T) {
	s := New(newFakeSession(), Options{})
	defer s.Close()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(context.Background(), sr, sw) }()
	cs, _ := client(t, func(c *mcp.Client, o *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
		return c.Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, o)
	})
	if res := call(t, cs, "echo", map[string]any{"a": 1}); text(t, res) != `{"a":1}` {
		t.Errorf("echo over stdio = %q", text(t, res))
	}
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeIO = %v, want nil on client hang-up", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeIO did not return after the client closed")
	}
}

// A client that gives up on a call (notifications/cancelled) cancels the
// session call; the connection stays usable.
func TestCallCancelled(t *testing.T) {
	sess := newFakeSession()
	s := New(sess, Options{})
	defer s.Close()
	cs, _ := client(t, inMemory(t, s))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		errc <- err
	}()
	<-sess.slowStarted
	cancel()
	if err := <-errc; err == nil {
		t.Error("cancelled call returned no error to the client")
	}
	if res := call(t, cs, "echo", map[string]any{"after": true}); text(t, res) != `{"after":true}` {
		t.Errorf("call after a cancelled one = %q", text(t, res))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sess.mu.Lock()
		n := sess.slowCancelled
		sess.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session call was not cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNormalizeSchema(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{"type":"object"}`},
		{`null`, `{"type":"object"}`},
		{`{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema"}`, `{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema"}`},
		{`{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"type":"string"}},"type":"object"}`},
		{`{"type":"string"}`, `{"type":"object"}`},
		{`{"type":["object","null"],"required":["a"]}`, `{"required":["a"],"type":"object"}`},
		{`[1,2]`, `{"type":"object"}`},
		{`{bad`, `{"type":"object"}`},
	} {
		got, _ := normalizeSchema(json.RawMessage(tc.in))
		if string(got) != tc.want {
			t.Errorf("normalizeSchema(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "LOCALHOST:80": true, "127.0.0.1": true, "127.0.0.1:9": true, "[::1]:9": true, "::1": true, "127.1.2.3": true,
		"evil.example": false, "10.0.0.1:80": false, "localhost.evil.example": false, "": false,
	} {
		if got := isLoopback(h); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", h, got, want)
		}
	}
}

// The cost serve adds to a call: a tools/call over an in-memory MCP
// connection, against calling the session directly (the baseline).
func BenchmarkCall(b *testing.B) {
	sess := newFakeSession()
	args := json.RawMessage(`{"text":"hi"}`)
	b.Run("session-direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if r := sess.Call(context.Background(), "echo", args); !r.OK {
				b.Fatal(r.Error)
			}
		}
	})
	// A bare go-sdk server with the same tool: what MCP itself costs.
	b.Run("gosdk-bare", func(b *testing.B) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
			})
		benchClient(b, srv, args)
	})
	b.Run("serve", func(b *testing.B) {
		s := New(sess, Options{})
		defer s.Close()
		benchClient(b, s.MCP(), args)
	})
}

func benchClient(b *testing.B, srv *mcp.Server, args json.RawMessage) {
	{
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "echo", Arguments: args}
		b.ReportAllocs()
		for b.Loop() {
			if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	}
}

// Bringing a 1000-tool surface in line after a change.
func BenchmarkSync(b *testing.B) {
	sess := newFakeSession()
	sess.setTools(func(ts []runtime.ToolInfo) []runtime.ToolInfo {
		for i := range 1000 {
			ts = append(ts, runtime.ToolInfo{Name: fmt.Sprintf("tool_%d", i), Description: "A tool.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
		}
		return ts
	})
	s := New(sess, Options{})
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		s.mu.Lock()
		s.syncLocked()
		s.mu.Unlock()
	}
}

// mcpConnect connects with the initialize handshake (2025-11-25).
func mcpConnect(url string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err == nil {
		cs.Close()
	}
	return cs, err
}
