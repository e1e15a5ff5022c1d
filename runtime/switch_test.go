package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
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
