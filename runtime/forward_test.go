package runtime

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// forwardRegistry is the echo fixture over stdio, its tools under timeout,
// beside an in-process Go tool.
func forwardRegistry(t *testing.T, timeout time.Duration) *Registry {
	bin := buildEchoFixture(t)
	return &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: timeout, StartupTimeout: 30 * time.Second, ResponseMaxBytes: 1 << 20, InitConcurrency: 1, MaxDepth: 1},
		Servers:  []decl.Server{{Name: "echo", Transport: "stdio", Command: bin, Trusted: true, StartupTimeout: 30 * time.Second, ProtocolVersion: "2025-11-25"}},
		Tools:    []decl.Tool{{Name: "local", Kind: decl.KindGo, Go: goTool(func(context.Context, json.RawMessage) (string, error) { return "ok", nil })}},
		Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "echo"}, {Kind: decl.UseTool, Name: "local"}}}, {Name: "b", Use: []decl.Use{{Kind: decl.UseServer, Name: "echo"}}}},
	}
}

// forwardNow runs Forward and waits for its Result.
func forwardNow(t *testing.T, s *Session, tool, args string) Result {
	t.Helper()
	got := make(chan Result, 1)
	if s.Forward(context.Background(), tool, json.RawMessage(args), func(r Result) { got <- r }) == nil {
		t.Fatalf("Forward did not take a call of %s", tool)
	}
	select {
	case r := <-got:
		return r
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatalf("the forwarded call of %s never ended", tool)
		return Result{}
	}
}

// A forwarded call reports what the same call run by Call reports: the
// same Result but for its latency, and the same tool.call event.
func TestForwardReportsAsCall(t *testing.T) {
	ev := &events{}
	s := open(t, forwardRegistry(t, 10*time.Second), "a", Options{Logger: ev.logger()})
	ctx := context.Background()
	for _, tc := range []struct{ tool, args string }{
		{"echo__echo", `{"text":"hi"}`},
		{"echo__echo", ``}, // no arguments: {}, refused by the schema as Call refuses it
		{"echo__fail", `{}`},
		{"echo__echo", `{"text":1}`}, // refused by the input schema
		{"echo__echo", `[1]`},        // not an object
	} {
		sync := s.Call(ctx, tc.tool, json.RawMessage(tc.args))
		n := len(ev.named(EventToolCall))
		fwd := forwardNow(t, s, tc.tool, tc.args)
		if fwd.Latency <= 0 {
			t.Errorf("%s %s: latency %v", tc.tool, tc.args, fwd.Latency)
		}
		fwd.Latency, sync.Latency = 0, 0
		if !reflect.DeepEqual(fwd, sync) {
			t.Errorf("%s %s: results differ:\nforward %+v\ncall    %+v", tc.tool, tc.args, fwd, sync)
		}
		calls := ev.named(EventToolCall)
		if len(calls) != n+1 {
			t.Fatalf("%s: %d tool.call events for the forwarded call, want 1", tc.tool, len(calls)-n)
		}
		a, b := calls[n-1].Attrs, calls[n].Attrs
		delete(a, "latency_ms")
		delete(b, "latency_ms")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s %s: events differ:\nforward %v\ncall    %v", tc.tool, tc.args, b, a)
		}
	}
}

// Forward takes only what it can run so, and does nothing for the rest:
// a tool that is not a server's, an unknown one, handoff.
func TestForwardRefuses(t *testing.T) {
	reg := forwardRegistry(t, 10*time.Second)
	s := open(t, reg, "a", Options{})
	s.Call(context.Background(), "echo__echo", json.RawMessage(`{"text":"connect"}`))
	for _, name := range []string{"local", "nope", decl.ToolHandoff} {
		if s.Forward(context.Background(), name, json.RawMessage(`{}`), func(Result) { t.Errorf("%s: done called", name) }) != nil {
			t.Errorf("Forward took a call of %s", name)
		}
		if s.MayForward(name) {
			t.Errorf("MayForward(%s)", name)
		}
	}
	if !s.MayForward("echo__echo") {
		t.Error("MayForward refuses a stdio server's tool")
	}
	if n := s.st.Load().inflight.Load(); n != 0 {
		t.Errorf("%d calls in flight after refusals", n)
	}
}

// A forwarded call past its tool's timeout ends as Call ends it: the
// timeout's error, and the server told to cancel. Cancel ends one early
// the same way, with the cancel's error; done runs once either way.
func TestForwardTimeoutAndCancel(t *testing.T) {
	ev := &events{}
	s := open(t, forwardRegistry(t, 300*time.Millisecond), "a", Options{Logger: ev.logger()})
	ctx := context.Background()
	sync := s.Call(ctx, "echo__sleep", json.RawMessage(`{"ms":600000}`))
	fwd := forwardNow(t, s, "echo__sleep", `{"ms":600000}`)
	if fwd.OK || fwd.Error != sync.Error || !strings.Contains(fwd.Error, "timeout after 300ms") {
		t.Errorf("timed out: forward %+v, call %+v", fwd, sync)
	}
	if n := stderrLines(ev, "sleep cancelled", 2); n != 2 {
		t.Errorf("the server was told of %d cancelled sleeps, want 2", n)
	}

	got := make(chan Result, 2)
	f := s.Forward(ctx, "echo__sleep", json.RawMessage(`{"ms":100}`), func(r Result) { got <- r })
	f.Cancel()
	f.Cancel()
	if r := <-got; r.OK || r.Error != context.Canceled.Error() {
		t.Errorf("cancelled: %+v", r)
	}
	time.Sleep(300 * time.Millisecond) // past the sleep and the timeout: neither ends it again
	select {
	case r := <-got:
		t.Errorf("done called again: %+v", r)
	default:
	}
	if n := s.st.Load().inflight.Load(); n != 0 {
		t.Errorf("%d calls in flight after the calls ended", n)
	}
}

// A forced teardown ends a forwarded call still running, as it cancels
// any other call: the call reports the teardown, not a result.
func TestForcedTeardownEndsForwardedCalls(t *testing.T) {
	shortGrace(t, 50*time.Millisecond)
	ev := &events{}
	s := open(t, forwardRegistry(t, time.Hour), "a", Options{Logger: ev.logger()})
	ctx := context.Background()
	s.Call(ctx, "echo__echo", json.RawMessage(`{"text":"connect"}`))
	got := make(chan Result, 1)
	if s.Forward(ctx, "echo__sleep", json.RawMessage(`{"ms":600000}`), func(r Result) { got <- r }) == nil {
		t.Fatal("Forward did not take the call")
	}
	if err := s.Switch(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	ev.requireOne(t, EventAgentSwitchTimeout, "agent", "a")
	select {
	case r := <-got:
		if r.OK || !strings.Contains(r.Error, `agent "a" was torn down while the call ran`) {
			t.Errorf("after the teardown: %+v", r)
		}
	case <-time.After(time.Minute): // a hang guard, not a timing assertion
		t.Fatal("the forced teardown did not end the forwarded call")
	}
}

// stderrLines waits (up to 20 s) until want of the server's stderr lines
// hold text, and returns how many do.
func stderrLines(ev *events, text string, want int) int {
	count := func() int {
		n := 0
		for _, r := range ev.named("server.stderr") {
			if strings.Contains(r.Attrs["line"], text) {
				n++
			}
		}
		return n
	}
	for end := time.Now().Add(20 * time.Second); count() < want && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	return count()
}
