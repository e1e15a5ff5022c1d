package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"go.uber.org/goleak"
)

// shortGrace shortens the switch timeout for one test.
func shortGrace(t *testing.T, d time.Duration) {
	old := switchGrace
	switchGrace = d
	t.Cleanup(func() { switchGrace = old })
}

// Calls racing Switch never see "session closed" while the session is
// open: each completes on the agent it started on, or runs on the new
// agent, or (tool missing there) fails with "agent switched to".
func TestSwitchRaceNeverSessionClosed(t *testing.T) {
	name := func(agent string) decl.GoFunc {
		return goTool(func(context.Context, json.RawMessage) (string, error) { return agent, nil })
	}
	reg := &Registry{
		Tools: []decl.Tool{
			{Name: "only_a", Kind: decl.KindGo, Go: name("a")},
			{Name: "shared", Kind: decl.KindGo, Go: name("any")},
		},
		Agents: []decl.Agent{
			{Name: "a", Use: useTools("only_a", "shared")},
			{Name: "b", Use: useTools("shared")},
		},
	}
	s := open(t, reg, "a", Options{Logger: slog.New(slog.DiscardHandler)})
	ctx := context.Background()
	const switches = 2000
	var stop atomic.Bool
	var calls, closed, sharedFailed, onlyA, switchedMsg atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := 0; !stop.Load(); j++ {
				tool := "shared"
				if (i+j)%3 == 0 {
					tool = "only_a"
				}
				r := s.Call(ctx, tool, json.RawMessage(`{}`))
				calls.Add(1)
				switch {
				case strings.Contains(r.Error, "session closed"):
					closed.Add(1)
				case tool == "shared" && !r.OK:
					sharedFailed.Add(1)
					t.Errorf("shared: %+v", r)
				case tool == "only_a" && r.OK:
					onlyA.Add(1)
				case strings.Contains(r.Error, `agent switched to "b"`):
					switchedMsg.Add(1)
				}
				goruntime.Gosched() // on 2 cores, let the switching goroutine run too
			}
		})
	}
	for i := range switches {
		agent := "b"
		if i%2 == 1 {
			agent = "a"
		}
		if err := s.Switch(ctx, agent); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d calls during %d switches: %d session closed, %d only_a ok, %d \"agent switched\"",
		calls.Load(), switches, closed.Load(), onlyA.Load(), switchedMsg.Load())
	if closed.Load() != 0 {
		t.Errorf(`%d of %d calls failed with "session closed" on an open session`, closed.Load(), calls.Load())
	}
	if r := call(t, s, "shared", `{}`); !r.OK {
		t.Errorf("after the switches: %+v", r)
	}
	s.Close()
	if r := call(t, s, "shared", `{}`); r.Error != "session closed" {
		t.Errorf("after Close: %+v", r)
	}
}

// A call that meets its agent context already torn down has not started:
// it runs on the new agent when that agent has the tool, and otherwise
// fails naming the agent it was switched to.
func TestCallAfterSwitch(t *testing.T) {
	reg := &Registry{
		Tools: []decl.Tool{{Name: "only_a", Kind: decl.KindGo, Go: echoGo()}, {Name: "shared", Kind: decl.KindGo, Go: echoGo()}},
		Agents: []decl.Agent{
			{Name: "a", Use: useTools("only_a", "shared")},
			{Name: "b", Use: useTools("shared")},
		},
	}
	ev := &events{}
	s := open(t, reg, "a", Options{Logger: ev.logger()})
	ctx := context.Background()
	old := s.st.Load()
	if err := s.Switch(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if old.enter() {
		t.Fatal("the old context still takes calls")
	}
	r := s.callAfterSwitch(ctx, old, "only_a", json.RawMessage(`{}`))
	if r.OK || r.Error != `agent switched to "b" before the call started; "only_a" is not one of its tools` {
		t.Errorf("only_a: %+v", r)
	}
	ev.requireOne(t, EventToolBlocked, "tool", "only_a", "reason", "agent_switched", "switched_to", "b")
	if r := s.callAfterSwitch(ctx, old, "shared", json.RawMessage(`{"x":1}`)); !r.OK || r.Result != `{"x":1}` {
		t.Errorf("shared: %+v", r)
	}
	s.Close()
	if r := s.callAfterSwitch(ctx, old, "shared", json.RawMessage(`{}`)); r.Error != "session closed" {
		t.Errorf("after Close: %+v", r)
	}
}

// A forced teardown cancels the context of an in-process Go tool that is
// still running, on the fast path (no queue, no timeout) and on the
// bounded path (a timeout), and its result, arriving late, is replaced by
// an error and logged as tool.late_result.
func TestForcedTeardownCancelsGoTools(t *testing.T) {
	shortGrace(t, 50*time.Millisecond)
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{{"fast path", 0}, {"bounded", time.Hour}} {
		t.Run(tc.name, func(t *testing.T) {
			toolCtx := make(chan context.Context, 1)
			release := make(chan struct{})
			// stubborn ignores its context until released, then answers
			// "ok" all the same.
			stubborn := goTool(func(ctx context.Context, _ json.RawMessage) (string, error) {
				toolCtx <- ctx
				<-release
				return "ok from the old agent", nil
			})
			honest := goTool(func(ctx context.Context, _ json.RawMessage) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
			})
			reg := &Registry{
				Tools: []decl.Tool{
					{Name: "honest", Kind: decl.KindGo, Go: honest, Timeout: tc.timeout},
					{Name: "stubborn", Kind: decl.KindGo, Go: stubborn, Timeout: tc.timeout},
				},
				Agents: []decl.Agent{{Name: "old", Use: useTools("honest", "stubborn")}, {Name: "new"}},
			}
			ev := &events{}
			s := open(t, reg, "old", Options{Logger: ev.logger()})
			ctx := context.Background()
			stubbornDone := make(chan Result, 1)
			go func() { stubbornDone <- s.Call(ctx, "stubborn", json.RawMessage(`{}`)) }()
			stubbornCtx := <-toolCtx
			honestDone := make(chan Result, 1)
			go func() { honestDone <- s.Call(ctx, "honest", json.RawMessage(`{}`)) }()
			for s.st.Load().inflight.Load() != 2 {
				time.Sleep(time.Millisecond)
			}
			if err := s.Switch(ctx, "new"); err != nil {
				t.Fatal(err)
			}
			ev.requireOne(t, EventAgentSwitchTimeout, "agent", "old")
			// the tool that honours its context ends with the teardown
			if r := <-honestDone; r.OK || !strings.Contains(r.Error, "torn down while the call ran") {
				t.Errorf("honest: %+v", r)
			}
			select {
			case <-stubbornCtx.Done():
			case <-time.After(time.Minute): // a hang guard, not a timing assertion
				t.Fatal("the stubborn tool's context was not cancelled by the forced teardown")
			}
			close(release)
			r := <-stubbornDone
			if r.OK || r.Result != "" || !strings.Contains(r.Error, `agent "old" was torn down while the call ran`) {
				t.Errorf("late result delivered: %+v", r)
			}
			// on the fast path the tool's own answer arrives late; the bounded
			// path stops waiting at the cancel and the tool finishes alone
			status := "ok"
			if tc.timeout > 0 {
				status = "failed"
			}
			ev.requireOne(t, EventToolLateResult, "tool", "stubborn", "agent", "old", "status", status)
			if s.Agent() != "new" {
				t.Errorf("agent %q", s.Agent())
			}
		})
	}
}

// The link between a caller's context and the agent context: a cancellable
// caller context still cancels the tool, the agent's teardown cancels it
// too, values pass through, and derived contexts follow both.
func TestAgentLinkedContext(t *testing.T) {
	type key struct{}
	agentCtx, endAgent := context.WithCancel(context.Background())
	st := &agentState{ctx: agentCtx}
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	c := st.linkContext(parent)
	if c.Value(key{}) != "v" {
		t.Error("value lost")
	}
	if st.linkContext(parent) != c {
		t.Error("the same caller context was linked twice")
	}
	derived, cancelDerived := context.WithTimeout(c, time.Hour)
	defer cancelDerived()
	cancelParent()
	<-c.Done()
	<-derived.Done()
	if c.Err() == nil || derived.Err() == nil {
		t.Error("Err nil after the caller cancelled")
	}

	bg := st.linkContext(context.Background())
	derived2, cancel2 := context.WithCancel(bg)
	defer cancel2()
	select {
	case <-bg.Done():
		t.Fatal("done before teardown")
	default:
	}
	endAgent()
	<-bg.Done()
	<-derived2.Done()
	if bg.Err() != context.Canceled {
		t.Errorf("Err = %v", bg.Err())
	}

	// a context type == cannot compare (it would panic) is linked all the same
	type valueCtx struct {
		context.Context
		tags []string
	}
	var v context.Context = valueCtx{context.Background(), []string{"x"}}
	if a, b := st.linkContext(v), st.linkContext(v); a != b || a.Value(key{}) != nil {
		t.Error("the same non-comparable context value was linked twice")
	}
	if st.linkContext(valueCtx{context.Background(), []string{"x"}}) == st.linkContext(v) {
		t.Error("two context values shared a link")
	}
}

// Seed tool-orchestration, scenario "Agent switch initiated".
func TestAgentSwitchInitiated(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "coder", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}},
		decl.Agent{Name: "writer", Use: useTools("summarize")},
	)
	ev := &events{}
	s := open(t, f.reg, "coder", f.opts(ev))
	mem := s.st.Load().memory
	mem.Set("draft", "x")
	notified := 0
	s.Subscribe(func() { notified++ })
	if err := s.Switch(context.Background(), "writer"); err != nil {
		t.Fatal(err)
	}
	if s.Agent() != "writer" || notified != 1 {
		t.Errorf("agent %q, notified %d", s.Agent(), notified)
	}
	if diff := cmp.Diff([]string{"summarize"}, poolNames(s)); diff != "" {
		t.Errorf("tools after switch (-want +got):\n%s", diff)
	}
	if _, ok := s.st.Load().memory.Get("draft"); ok {
		t.Error("memory leaked across Switch")
	}
	if r := call(t, s, "github__search_code", `{}`); r.OK {
		t.Error("old agent's tool callable after Switch")
	}
	if _, live := f.conn.count("github"); live != 0 {
		t.Errorf("github connection not released: %d live", live)
	}
	if err := s.Switch(context.Background(), "wrtier"); err == nil || !strings.Contains(err.Error(), `did you mean "writer"`) {
		t.Errorf("unknown agent: %v", err)
	}
	if s.Agent() != "writer" {
		t.Error("a failed Switch to an unknown agent tore the session down")
	}
}

// Seed tool-orchestration, scenario "Context teardown".
func TestContextTeardown(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newFixture(decl.Agent{Name: "coder", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseServer, Name: "docs"}}})
	ev := &events{}
	s, err := Open(context.Background(), f.reg, "coder", f.opts(ev))
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, s, "github__search_code", `{"q":"x"}`))
	spillDir := s.st.Load().spill
	s.Close()
	s.Close() // idempotent
	for _, srv := range []string{"github", "docs"} {
		if acq, live := f.conn.count(srv); acq != 1 || live != 0 {
			t.Errorf("%s: acquired %d, live %d after Close", srv, acq, live)
		}
	}
	if s.Tools() != nil {
		t.Error("tools registry not cleared")
	}
	_ = spillDir
	e := ev.requireOne(t, EventAgentTeardown, "agent", "coder")
	if e.Attrs["servers"] != "2" || e.Attrs["forced"] != "false" {
		t.Errorf("teardown event %+v", e)
	}
	if r := call(t, s, "github__search_code", `{}`); r.OK || r.Error != "session closed" {
		t.Errorf("call after Close: %+v", r)
	}
}

// Seed tool-orchestration, scenario "Context build".
func TestContextBuild(t *testing.T) {
	f := newFixture(decl.Agent{Name: "coder", Use: []decl.Use{{Kind: decl.UseTool, Name: "read_file"}, {Kind: decl.UseServer, Name: "github"}}})
	ev := &events{}
	s := open(t, f.reg, "coder", f.opts(ev))
	ev.requireOne(t, EventServerStart, "server", "github", "agent", "coder")
	e := ev.requireOne(t, EventAgentBuild, "agent", "coder")
	if e.Attrs["servers"] != "[github]" || e.Attrs["depth"] != "0" {
		t.Errorf("build event %+v", e)
	}
	if diff := cmp.Diff([]string{"github__get_file_contents", "github__get_file_history", "github__search_code", "read_file"}, poolNames(s)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := s.Instructions(); !slices.Equal(got, []string{"Use search_code before reading files."}) {
		t.Errorf("instructions %q", got)
	}
	s.st.Load().memory.Set("k", "v")
	if v, _ := s.st.Load().memory.Get("k"); v != "v" {
		t.Error("memory not initialised")
	}
}

// Seed tool-orchestration, scenario "Switch timeout".
func TestSwitchTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	shortGrace(t, 100*time.Millisecond)
	release := make(chan struct{})
	started := make(chan struct{})
	f := newFixture(decl.Agent{Name: "slow", Use: useTools("hang")}, decl.Agent{Name: "next", Use: useTools("summarize")})
	f.reg.Tools = append(f.reg.Tools, decl.Tool{Name: "hang", Kind: decl.KindGo, Go: goTool(func(ctx context.Context, _ json.RawMessage) (string, error) {
		close(started)
		<-release // ignores ctx on purpose: only the forced teardown ends the wait
		return "late", nil
	})})
	f.reg.Defaults.ToolTimeout = 0
	slices.SortFunc(f.reg.Tools, func(a, b decl.Tool) int { return strings.Compare(a.Name, b.Name) })
	ev := &events{}
	s, err := Open(context.Background(), f.reg, "slow", f.opts(ev))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result)
	go func() { done <- call(t, s, "hang", `{}`) }()
	<-started
	if err := s.Switch(context.Background(), "next"); err != nil {
		t.Fatal(err)
	}
	e := ev.requireOne(t, EventAgentSwitchTimeout, "agent", "slow")
	if e.Level != slog.LevelWarn || e.Attrs["in_flight"] != "1" {
		t.Errorf("event %+v", e)
	}
	ev.requireOne(t, EventAgentTeardown, "agent", "slow", "forced", "true")
	ev.requireOne(t, EventAgentBuild, "agent", "next")
	mustOK(t, call(t, s, "summarize", `{}`))
	close(release)
	// the old agent is gone: its late answer is not delivered
	if r := <-done; r.OK || r.Result != "" || !strings.Contains(r.Error, "torn down while the call ran") {
		t.Errorf("in-flight call: %+v", r)
	}
	ev.requireOne(t, EventToolLateResult, "tool", "hang", "agent", "slow", "status", "ok")
	s.Close()
}

// Seed tool-orchestration: Switch waits for in flight.
func TestSwitchWaitsForInFlight(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	f := newFixture(decl.Agent{Name: "a", Use: useTools("work")}, decl.Agent{Name: "b"})
	f.reg.Tools = append(f.reg.Tools, decl.Tool{Name: "work", Kind: decl.KindGo, Go: goTool(func(ctx context.Context, _ json.RawMessage) (string, error) {
		close(started)
		<-release
		return "done", nil
	})})
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	done := make(chan Result)
	go func() { done <- call(t, s, "work", `{}`) }()
	<-started
	switched := make(chan error)
	go func() { switched <- s.Switch(context.Background(), "b") }()
	close(release)
	if r := <-done; !r.OK {
		t.Errorf("in-flight call failed: %+v", r)
	}
	if err := <-switched; err != nil {
		t.Fatal(err)
	}
	if len(ev.named(EventAgentSwitchTimeout)) != 0 {
		t.Error("switch timed out although the call finished")
	}
	ev.requireOne(t, EventAgentTeardown, "agent", "a", "forced", "false")
}

// Calls still waiting for a queue slot have not started: Switch frees them
// at once and waits only for the running ones.
//
// Seed tool-orchestration: Switch releases queue waiters.
func TestSwitchReleasesQueueWaiters(t *testing.T) {
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
	ev := &events{}
	s := open(t, f.reg, "a", f.opts(ev))
	st := s.st.Load()
	var holders, waiters sync.WaitGroup
	for range 3 {
		holders.Go(func() { mustOK(t, call(t, s, "held", `{}`)) })
	}
	holding.Wait()
	var freed atomic.Int64
	for range 5 {
		waiters.Go(func() {
			if r := call(t, s, "held", `{}`); !r.OK && strings.Contains(r.Error, "agent context closed") {
				freed.Add(1)
			}
		})
	}
	for st.inflight.Load() != 8 { // 3 running, 5 queued
		time.Sleep(time.Millisecond)
	}
	switched := make(chan error)
	go func() { switched <- s.Switch(context.Background(), "b") }()
	waiters.Wait() // freed while the holders still run
	if freed.Load() != 5 {
		t.Errorf("%d of 5 queued calls freed by Switch", freed.Load())
	}
	close(hold)
	holders.Wait()
	if err := <-switched; err != nil {
		t.Fatal(err)
	}
	if len(ev.named(EventAgentSwitchTimeout)) != 0 {
		t.Error("Switch timed out waiting for queued calls")
	}
}

// slowConnector never finishes the handshake of one server.
type slowConnector struct {
	Connector
	slow string
}

func (c slowConnector) Acquire(ctx context.Context, srv *decl.Server, getenv func(string) (string, bool)) (Upstream, error) {
	if srv.Name == c.slow {
		<-ctx.Done()
		return nil, fmt.Errorf("server %q: %w", srv.Name, context.Cause(ctx))
	}
	return c.Connector.Acquire(ctx, srv, getenv)
}

// A cancellable caller context (a served call's, one per call) is linked
// without a goroutine per call: the context package used to start one
// (context.AfterFunc) each time such a context ended. The agent's
// teardown still cancels what is linked and open, and the list of links
// is swept rather than grow with every call.
func TestAgentLinkedNoGoroutinePerCall(t *testing.T) {
	agentCtx, endAgent := context.WithCancel(context.Background())
	st := &agentState{ctx: agentCtx}
	link := func() (context.Context, context.CancelFunc) {
		parent, cancel := context.WithCancel(context.Background())
		c := st.linkContext(parent)
		derived, cancelDerived := context.WithTimeout(c, time.Hour) // as a tool's timeout
		return derived, func() { cancelDerived(); cancel() }
	}
	_, cancel := link() // registers the teardown watch, once
	cancel()
	created := func() uint64 {
		s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	const calls = 1000
	before := created()
	for range calls {
		derived, cancel := link()
		cancel()
		<-derived.Done()
	}
	if n := created() - before; n > calls/10 {
		t.Errorf("%d goroutines started for %d linked calls", n, calls)
	}
	st.links.mu.Lock()
	n := len(st.links.live)
	st.links.mu.Unlock()
	if n > 2*minSweep {
		t.Errorf("%d links kept after %d calls that all ended", n, calls)
	}

	open, cancelOpen := link()
	defer cancelOpen()
	endAgent()
	select {
	case <-open.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a call linked to the agent context was not cancelled by its teardown")
	}
	late, cancelLate := link()
	defer cancelLate()
	<-late.Done() // linked after the teardown: ended at once
}
