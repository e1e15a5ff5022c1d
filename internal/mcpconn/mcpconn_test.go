package mcpconn

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestStdioEcho(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "echo", "-instructions", "Use echo to test."))
	defer c.Release()

	if got, want := toolNames(c.Tools()), []string{"echo", "fail", "pid", "sleep"}; !slices.Equal(got, want) {
		t.Errorf("tools = %v, want %v", got, want)
	}
	if r := call(t, c, "echo", `{"text":"héllo"}`); r.Text() != "héllo" || r.IsError {
		t.Errorf("echo = %+v", r)
	}
	if r := call(t, c, "fail", `{}`); !r.IsError || r.Text() != "it failed" {
		t.Errorf("fail = %+v, want a tool error", r)
	}
	if r := call(t, c, "echo", ``); r.Text() != "" { // no arguments: sent as {}
		t.Errorf("echo without args = %+v", r)
	}
	if _, err := c.Call(context.Background(), "echo", []byte(`["not","an","object"]`)); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("array args: err = %v", err)
	}
	if _, err := c.Call(context.Background(), "echo", []byte(`{"text": broken`)); err == nil {
		t.Error("malformed args were sent")
	}
	if r, err := c.Call(context.Background(), "no_such_tool", []byte(`{}`)); err == nil && !r.IsError {
		t.Errorf("unknown tool = %+v, want an error", r)
	}
	if got := c.Instructions(); got != "Use echo to test." {
		t.Errorf("instructions = %q", got)
	}
	if c.Health() != HealthGreen || c.Err() != nil {
		t.Errorf("health %s, err %v", c.Health(), c.Err())
	}
	rec.waitEvent(t, "server.start", "server", "echo", "tools", "4", "transport", "stdio")
}

func TestPagination(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "echo", "-tools", "250", "-page-size", "17"))
	defer c.Release()
	if n := len(c.Tools()); n != 254 {
		t.Fatalf("got %d tools over pages of 17, want 254", n)
	}
	if r := call(t, c, "tool_0249", `{}`); r.Text() != "tool_0249" {
		t.Errorf("last page tool = %+v", r)
	}
}

func TestSharingByRefcount(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	cfg := fixture(rec, "echo")

	// Concurrent Acquires of one configuration share one process.
	const n = 8
	conns := make([]*Conn, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { conns[i] = acquire(t, m, cfg) })
	}
	wg.Wait()
	pid := pidOf(t, conns[0])
	for _, c := range conns[1:] {
		if p := pidOf(t, c); p != pid {
			t.Fatalf("pid %d != %d: connection not shared", p, pid)
		}
	}
	if got := len(rec.find("server.start")); got != 1 {
		t.Errorf("%d server.start events, want 1", got)
	}

	// Another server name is another connection.
	other := cfg
	other.Name = "echo2"
	o := acquire(t, m, other)
	if pidOf(t, o) == pid {
		t.Error("different config shared a process")
	}
	o.Release()

	for _, c := range conns[:n-1] {
		c.Release()
		c.Release() // idempotent per handle
	}
	if call(t, conns[n-1], "echo", `{"text":"still"}`).Text() != "still" {
		t.Error("last holder lost the connection")
	}
	conns[n-1].Release()
	if procExists(pid) {
		t.Errorf("process %d still exists after the last Release", pid)
	}
	if _, err := conns[0].Call(context.Background(), "echo", []byte(`{"text":"x"}`)); err == nil {
		t.Error("call after release succeeded")
	}
}

func TestTeardownKillsProcessGroup(t *testing.T) {
	for _, trap := range []bool{false, true} {
		t.Run(fmt.Sprintf("trap-term=%v", trap), func(t *testing.T) {
			rec := newRecorder()
			m := NewManager(nil)
			args := []string{"-children", "3"}
			if trap {
				args = append(args, "-trap-term") // only SIGKILL ends it
			}
			c := acquire(t, m, fixture(rec, "echo", args...))
			pid := pidOf(t, c)
			if got := len(groupMembers(pid)); got != 4 {
				t.Fatalf("process group %d has %d members before teardown, want 4", pid, got)
			}
			c.Release()
			if got := groupMembers(pid); len(got) != 0 {
				t.Errorf("process group %d still has %v after teardown", pid, got)
			}
			if procExists(pid) {
				t.Errorf("server process %d not reaped (zombie or alive)", pid)
			}
			rec.waitEvent(t, "server.stop", "server", "echo")
			m.Close()
		})
	}
}

func TestManagerClose(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	a := acquire(t, m, fixture(rec, "echo"))
	b := acquire(t, m, fixture(rec, "huge"))
	pa := pidOf(t, a)
	m.Close()
	if procExists(pa) {
		t.Error("Manager.Close left a process")
	}
	if a.Err() == nil || b.Health() != HealthRed {
		t.Errorf("after Close: err %v, health %s", a.Err(), b.Health())
	}
	a.Release()
	b.Release()
	if _, err := m.Acquire(context.Background(), fixture(rec, "echo")); !errors.Is(err, ErrClosed) {
		t.Errorf("Acquire after Close: %v", err)
	}
}

func TestCrashMidCall(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "crash"))
	defer c.Release()

	_, err := c.Call(context.Background(), "crash", []byte(`{}`))
	if err == nil {
		t.Fatal("call to a crashing server succeeded")
	}
	fail := rec.waitEvent(t, "server.fail", "server", "crash")
	for _, want := range []string{"exit status 3", "crashing on purpose"} {
		if !strings.Contains(fail.attrs["reason"], want) {
			t.Errorf("server.fail reason %q lacks %q", fail.attrs["reason"], want)
		}
	}
	// Reconnected in the background.
	eventually(t, "reconnect", func() bool { return c.Err() == nil })
	if r := call(t, c, "ok", `{}`); r.Text() != "ok" {
		t.Errorf("after reconnect: %+v", r)
	}
	rec.waitEvent(t, "server.health", "health", "red")
	rec.waitEvent(t, "server.health", "health", "green")
}

func TestReconnectAfterKill(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "echo"))
	defer c.Release()
	var changed atomic.Int32
	c.OnToolsChanged(func() { changed.Add(1) })

	pid := pidOf(t, c)
	syscall.Kill(pid, syscall.SIGKILL)
	rec.waitEvent(t, "server.fail", "reason", "signal: killed")
	eventually(t, "reconnect", func() bool { return c.Err() == nil })
	if p := pidOf(t, c); p == pid {
		t.Error("same pid after reconnect")
	}
	if changed.Load() != 0 {
		t.Error("tools-changed fired although the tools did not change")
	}
}

func TestGarbageOnStdout(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "garbage"))
	defer c.Release()

	rec.waitEvent(t, "server.stdout_garbage", "line", "this line is not JSON")
	if r := call(t, c, "ok", `{}`); r.Text() != "ok" {
		t.Errorf("ok = %+v", r)
	}
	rec.waitEvent(t, "server.stdout_garbage", "line", "debug: ok was called")

	// A half-written message is dropped as well, rather than gluing itself
	// to the real answer that follows.
	if r := call(t, c, "corrupt", `{}`); r.Text() != "unreachable" {
		t.Errorf("corrupt = %+v", r)
	}
	rec.waitEvent(t, "server.stdout_garbage", "line", `{"jsonrpc":"2.0","id":`)
	if c.Err() != nil || len(rec.find("server.fail")) > 0 {
		t.Errorf("garbage took the server down: %v", c.Err())
	}
}

func TestNeverAnswersInitialize(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	cfg := fixture(rec, "silent")
	cfg.StartupTimeout = 300 * time.Millisecond
	_, err := m.Acquire(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "startup timeout") {
		t.Fatalf("err = %v, want a startup timeout", err)
	}
	rec.waitEvent(t, "server.fail", "server", "silent", "reason", "startup timeout")
}

func TestSlowStart(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	cfg := fixture(rec, "slowstart", "-delay", "300ms")
	c := acquire(t, m, cfg)
	c.Release()

	cfg = fixture(rec, "slowstart", "-delay", "5s")
	cfg.StartupTimeout = 200 * time.Millisecond
	if _, err := m.Acquire(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "startup timeout") {
		t.Errorf("err = %v, want a startup timeout", err)
	}
}

func TestFailedServerDoesNotBlockOthers(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	slow := fixture(rec, "silent")
	slow.StartupTimeout = 3 * time.Second
	order := make(chan string, 3)
	var wg sync.WaitGroup
	wg.Go(func() {
		_, err := m.Acquire(context.Background(), slow)
		if err == nil {
			t.Error("silent started")
		}
		order <- "silent"
	})
	wg.Go(func() {
		c := acquire(t, m, fixture(rec, "echo"))
		order <- "echo"
		c.Release()
	})
	missing := Config{Name: "missing", Command: "/nonexistent/mcp-server", Logger: rec.logger()}
	if _, err := m.Acquire(context.Background(), missing); err == nil || !strings.Contains(err.Error(), `server "missing"`) {
		t.Errorf("missing command: %v", err)
	}
	wg.Wait()
	close(order)
	if first := <-order; first != "echo" {
		t.Errorf("%s finished first: a failing server held up a healthy one", first)
	}
	// A failed start is not cached: the next Acquire tries again.
	if _, err := m.Acquire(context.Background(), missing); err == nil {
		t.Error("second Acquire of a missing command succeeded")
	}
	if got := len(rec.find("server.fail", "server", "missing")); got != 2 {
		t.Errorf("%d server.fail events for missing, want 2", got)
	}
}

func TestHugeOutput(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "huge"))
	defer c.Release()
	const n = 8 << 20
	if r := call(t, c, "huge", fmt.Sprintf(`{"bytes":%d}`, n)); len(r.Text()) != n {
		t.Errorf("got %d bytes, want %d", len(r.Text()), n)
	}

	// Over the message cap: a clear error, then the connection recovers.
	cfg := fixture(rec, "huge")
	cfg.Name = "huge-capped"
	cfg.MaxMessageBytes = 1 << 20
	small := acquire(t, m, cfg)
	defer small.Release()
	if _, err := small.Call(context.Background(), "huge", []byte(`{"bytes":2000000}`)); err == nil {
		t.Error("message over the cap was accepted")
	}
	rec.waitEvent(t, "server.fail", "server", "huge-capped", "reason", "1048576-byte limit")
	eventually(t, "reconnect", func() bool { return small.Err() == nil })
	if r := call(t, small, "huge", `{"bytes":10}`); len(r.Text()) != 10 {
		t.Errorf("after reconnect: %+v", r)
	}
}

func TestBadSchemas(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "badschema"))
	defer c.Release()

	got := map[string]string{}
	for _, tl := range c.Tools() {
		got[tl.Name] = string(tl.InputSchema)
	}
	want := map[string]string{
		"good":         `{"type":"object"}`,
		"array_schema": `{"type":"object"}`,
		"no_schema":    `{"type":"object"}`,
		"untyped":      `{"properties":{"a":{"type":"string"}},"type":"object"}`,
		"nullable":     `{"type":"object"}`,
	}
	for name, schema := range want {
		if got[name] != schema {
			t.Errorf("%s: schema %s, want %s", name, got[name], schema)
		}
	}
	if _, ok := got["string_typed"]; ok {
		t.Error("tool with type string was not skipped")
	}
	rec.waitEvent(t, "server.tool_schema", "tool", "string_typed", "note", "skipped")
	rec.waitEvent(t, "server.tool_schema", "tool", "array_schema", "note", "array")

	// What survives can be served again by a go-sdk server without a panic.
	s := mcp.NewServer(&mcp.Implementation{Name: "reserve"}, nil)
	for _, tl := range c.Tools() {
		s.AddTool(&mcp.Tool{Name: tl.Name, InputSchema: tl.InputSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, nil
		})
	}
}

func TestListChanged(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "listchanged"))
	defer c.Release()
	changed := make(chan struct{}, 10)
	cancel := c.OnToolsChanged(func() { changed <- struct{}{} })

	call(t, c, "add_tool", `{"name":"fresh_tool"}`)
	<-changed
	if !slices.Contains(toolNames(c.Tools()), "fresh_tool") {
		t.Fatalf("tools after list_changed: %v", toolNames(c.Tools()))
	}
	if r := call(t, c, "fresh_tool", `{}`); r.Text() != "fresh_tool" {
		t.Errorf("fresh_tool = %+v", r)
	}
	call(t, c, "remove_tool", `{"name":"fresh_tool"}`)
	<-changed
	if slices.Contains(toolNames(c.Tools()), "fresh_tool") {
		t.Error("removed tool still listed")
	}
	cancel()
	call(t, c, "add_tool", `{"name":"later"}`)
	eventually(t, "refresh", func() bool { return slices.Contains(toolNames(c.Tools()), "later") })
	select {
	case <-changed:
		t.Error("cancelled listener ran")
	default:
	}
}

func TestCancellationReachesServer(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "echo"))
	defer c.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Call(ctx, "sleep", []byte(`{"ms":60000}`))
	if !errors.Is(err, context.DeadlineExceeded) && (err == nil || !strings.Contains(err.Error(), "deadline")) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
	// notifications/cancelled made the handler's ctx end: it says so on stderr.
	rec.waitEvent(t, "server.stderr", "server", "echo", "line", "sleep cancelled")
	if r := call(t, c, "echo", `{"text":"alive"}`); r.Text() != "alive" {
		t.Errorf("after cancel: %+v", r)
	}
}

func TestHealthColours(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	cfg := fixture(rec, "echo")
	cfg.HealthInterval = 50 * time.Millisecond
	cfg.HealthTimeout = 40 * time.Millisecond
	c := acquire(t, m, cfg)
	defer c.Release()
	if c.Health() != HealthGreen {
		t.Fatalf("health %s", c.Health())
	}
	pid := pidOf(t, c)
	// A stopped process answers nothing: yellow, then red, then a fresh
	// process comes up green.
	syscall.Kill(pid, syscall.SIGSTOP)
	rec.waitEvent(t, "server.health", "health", "yellow")
	rec.waitEvent(t, "server.health", "health", "red")
	rec.waitEvent(t, "server.fail", "reason", "health checks failed")
	eventually(t, "reconnect", func() bool { return c.Err() == nil && c.Health() == HealthGreen })
	if p := pidOf(t, c); p == pid {
		t.Error("stopped process was not replaced")
	}
	if procExists(pid) {
		t.Errorf("stopped process %d not killed", pid)
	}
}

func TestRedaction(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	const secret = "tok-7f3a9c"
	cfg := Config{
		Name:    "leaky",
		Command: "sh",
		Args:    []string{"-c", `echo "using token $API_TOKEN" >&2; exit 1`},
		Env:     []string{"API_TOKEN=" + secret},
		Redact:  []string{secret},
		Logger:  rec.logger(),
	}
	_, err := m.Acquire(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "using token [redacted]") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Error("secret in error")
	}
	for _, e := range rec.all() {
		if strings.Contains(e.String(), secret) {
			t.Errorf("secret in event %v", e)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	m := NewManager(nil)
	defer m.Close()
	for _, cfg := range []Config{
		{Name: "a", Transport: "stdio"},
		{Name: "b", Transport: "http"},
		{Name: "c", Transport: "tcp"},
		{Name: "d", Transport: "carrier-pigeon", URL: "x"},
		{Transport: "stdio", Command: "x"},
	} {
		if _, err := m.Acquire(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

func TestNetworkTransports(t *testing.T) {
	for _, tr := range []string{TransportTCP, TransportWS, TransportSSE, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			rec := newRecorder()
			m := NewManager(nil)
			defer m.Close()
			args := []string{"-transport", tr, "-instructions", "over " + tr}
			if tr != TransportTCP {
				args = append(args, "-require-header", "Authorization=Bearer abc")
			}
			addr := startListening(t, "echo", args...)
			// Pings every 20 ms; a generous timeout so that only a real
			// stall, not a busy test machine, turns the colour yellow.
			cfg := Config{Name: "net-" + tr, Transport: tr, Logger: rec.logger(),
				HealthInterval: 20 * time.Millisecond, HealthTimeout: 10 * time.Second}
			if tr == TransportTCP {
				cfg.Address = addr
			} else {
				cfg.URL = addr
				// Without the header the server refuses: a clear error.
				noAuth := cfg
				noAuth.StartupTimeout = 5 * time.Second
				if _, err := m.Acquire(context.Background(), noAuth); err == nil {
					t.Error("connected without the required header")
				}
				cfg.Name += "-auth"
				cfg.Headers = map[string]string{"Authorization": "Bearer abc"}
			}
			c := acquire(t, m, cfg)
			defer c.Release()
			if r := call(t, c, "echo", `{"text":"over `+tr+`"}`); r.Text() != "over "+tr {
				t.Errorf("echo = %+v", r)
			}
			if c.Instructions() != "over "+tr {
				t.Errorf("instructions %q", c.Instructions())
			}
			if len(c.Tools()) != 4 {
				t.Errorf("tools %v", toolNames(c.Tools()))
			}
			// Health pings run over every transport.
			time.Sleep(100 * time.Millisecond)
			if c.Health() != HealthGreen {
				t.Errorf("health %s", c.Health())
			}
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Go(func() {
					want := fmt.Sprint(i)
					r, err := c.Call(context.Background(), "echo", json.RawMessage(`{"text":"`+want+`"}`))
					if err != nil || r.Text() != want {
						t.Errorf("parallel call %d: %+v %v", i, r, err)
					}
				})
			}
			wg.Wait()
		})
	}
}

func TestServerDiesOverNetwork(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	addr := startListening(t, "crash", "-transport", "tcp")
	c := acquire(t, m, Config{Name: "tcp-crash", Transport: TransportTCP, Address: addr, Logger: rec.logger()})
	defer c.Release()
	if _, err := c.Call(context.Background(), "crash", []byte(`{}`)); err == nil {
		t.Error("crash call succeeded")
	}
	rec.waitEvent(t, "server.fail", "server", "tcp-crash")
	if c.Health() != HealthRed {
		t.Errorf("health %s after the server died", c.Health())
	}
	// Nothing listens any more: reconnect attempts keep failing, with events.
	rec.waitEvent(t, "server.fail", "server", "tcp-crash", "attempt", "1")
	if _, err := c.Call(context.Background(), "ok", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Errorf("call while down: %v", err)
	}
}

var _ = os.Getpid

func TestHTTPServerDies(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	cmd := exec.Command(filepath.Join(fixtureDir, "echo"), "-transport", "http")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	c := acquire(t, m, Config{Name: "http-dies", Transport: TransportHTTP, URL: url, Logger: rec.logger()})
	defer c.Release()
	cmd.Process.Kill()
	cmd.Wait()
	start := time.Now()
	rec.waitEvent(t, "server.fail", "server", "http-dies")
	t.Logf("death noticed after %s", time.Since(start))
	if _, err := c.Call(context.Background(), "echo", []byte(`{"text":"x"}`)); err == nil {
		t.Error("call to a dead server succeeded")
	}
}

func TestReleaseFromListener(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "listchanged"))
	c.OnToolsChanged(func() { c.Release() }) // the last handle, from a listener
	call(t, c, "add_tool", `{"name":"x"}`)
	rec.waitEvent(t, "server.stop", "server", "listchanged")
}

func TestServerWithoutTools(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(rec, "echo", "-bare"))
	defer c.Release()
	if len(c.Tools()) != 0 || c.Err() != nil {
		t.Errorf("tools %v, err %v", toolNames(c.Tools()), c.Err())
	}
}

func TestListChangedOverNetwork(t *testing.T) {
	for _, tr := range []string{TransportHTTP, TransportWS, TransportSSE} {
		t.Run(tr, func(t *testing.T) {
			rec := newRecorder()
			m := NewManager(nil)
			defer m.Close()
			url := startListening(t, "listchanged", "-transport", tr)
			c := acquire(t, m, Config{Name: "lc-" + tr, Transport: tr, URL: url, Logger: rec.logger()})
			defer c.Release()
			changed := make(chan struct{}, 10)
			c.OnToolsChanged(func() { changed <- struct{}{} })
			call(t, c, "add_tool", `{"name":"net_tool"}`)
			<-changed
			if !slices.Contains(toolNames(c.Tools()), "net_tool") {
				t.Errorf("tools %v", toolNames(c.Tools()))
			}
		})
	}
}

func TestAcquireContextEnds(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := m.Acquire(ctx, fixture(rec, "silent"))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `server "silent": gave up waiting`) {
		t.Fatalf("err = %v", err)
	}
	// The abandoned start was torn down, quietly.
	rec.waitEvent(t, "server.stop", "server", "silent")
	if len(rec.find("server.fail")) > 0 {
		t.Errorf("server.fail for a start nobody waits for: %v", rec.find("server.fail"))
	}
}

func TestAcquireReleaseChurn(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	cfg := fixture(rec, "echo")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 5 {
				c, err := m.Acquire(context.Background(), cfg)
				if err != nil {
					t.Error(err)
					return
				}
				want := fmt.Sprintf("%d-%d", g, i)
				if r, err := c.Call(context.Background(), "echo", []byte(`{"text":"`+want+`"}`)); err != nil || r.Text() != want {
					t.Errorf("call %s: %+v %v", want, r, err)
				}
				c.Release()
			}
		})
	}
	wg.Wait()
	eventually(t, "every start stopped", func() bool {
		return len(rec.find("server.start")) == len(rec.find("server.stop"))
	})
}
