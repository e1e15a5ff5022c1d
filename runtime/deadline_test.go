package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func wheelLen() int {
	deadlines.mu.Lock()
	defer deadlines.mu.Unlock()
	return len(deadlines.calls)
}

// A tool timeout runs on the shared wheel: the call is on it while it
// runs and off it once it ends; a tool that overruns sees
// DeadlineExceeded and the call fails with the tool's timeout cause.
func TestToolTimeoutOnWheel(t *testing.T) {
	seen := make(chan error, 1)
	var onWheel int
	tool := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		onWheel = wheelLen()
		if string(args) == `{"stall":true}` {
			<-ctx.Done()
			seen <- ctx.Err()
			return nil, ctx.Err()
		}
		return json.RawMessage(`"done"`), nil
	}
	reg := &Registry{
		Defaults: decl.Defaults{ResponseMaxBytes: 100000},
		Tools:    []decl.Tool{{Name: "slow", Kind: decl.KindGo, Go: tool, Timeout: 50 * time.Millisecond}},
		Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "slow"}}}},
	}
	s, err := Open(context.Background(), reg, "a", Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r := s.Call(context.Background(), "slow", json.RawMessage(`{}`)); !r.OK || r.Result != "done" {
		t.Fatalf("call: %+v", r)
	}
	if onWheel != 1 {
		t.Fatalf("the call was not on the deadline wheel (%d calls on it)", onWheel)
	}
	if n := wheelLen(); n != 0 {
		t.Fatalf("a finished call stays on the wheel (%d)", n)
	}
	r := s.Call(context.Background(), "slow", json.RawMessage(`{"stall":true}`))
	if r.OK || !strings.Contains(r.Error, "timeout after 50ms") {
		t.Fatalf("stalled call: %+v", r)
	}
	if err := <-seen; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the tool saw %v, want DeadlineExceeded", err)
	}
}

// Every context ends exactly as context.WithTimeoutCause's would: at its
// deadline with DeadlineExceeded and its cause, or earlier with Canceled
// when stopped or when its parent ends, and then stays so.
func TestDeadlineWheelExact(t *testing.T) {
	cause := errors.New("timeout after test")
	r := rand.New(rand.NewPCG(2, 5))
	var wg sync.WaitGroup
	for i := range 200 {
		d := time.Duration(1+r.IntN(40)) * time.Millisecond
		if i%3 == 1 {
			d += time.Hour // stopped long before it
		}
		parent, cancelParent := context.WithCancelCause(context.Background())
		gone := errors.New("caller gone")
		if i%3 == 2 {
			cancelParent(gone) // before its deadline, whatever the scheduler does
		}
		ctx, stop := withTimeout(parent, d, cause)
		if at, ok := ctx.Deadline(); !ok || at.IsZero() {
			t.Fatal("no deadline")
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 3 {
			case 0: // runs out
				<-ctx.Done()
				if !errors.Is(ctx.Err(), context.DeadlineExceeded) || context.Cause(ctx) != cause {
					t.Errorf("expired: %v / %v", ctx.Err(), context.Cause(ctx))
				}
				stop()
			case 1: // ends in time
				stop()
				if ctx.Err() != context.Canceled {
					t.Errorf("stopped: %v", ctx.Err())
				}
			case 2: // its parent ends first
				<-ctx.Done()
				if ctx.Err() != context.Canceled || context.Cause(ctx) != gone {
					t.Errorf("parent: %v / %v", ctx.Err(), context.Cause(ctx))
				}
				time.Sleep(d + 5*time.Millisecond) // past its deadline: still the parent's end
				if ctx.Err() != context.Canceled || context.Cause(ctx) != gone {
					t.Errorf("parent, after the deadline: %v / %v", ctx.Err(), context.Cause(ctx))
				}
				stop()
			}
			cancelParent(nil)
		}()
	}
	wg.Wait()
	if n := wheelLen(); n != 0 {
		t.Fatalf("%d contexts left on the wheel", n)
	}
}

// A parent's earlier deadline is the call's, as with WithTimeout.
func TestDeadlineWheelParentFirst(t *testing.T) {
	parent, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	ctx, stop := withTimeout(parent, time.Hour, errors.New("x"))
	defer stop()
	pd, _ := parent.Deadline()
	if at, _ := ctx.Deadline(); !at.Equal(pd) {
		t.Fatalf("deadline %v, want the parent's %v", at, pd)
	}
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("err %v", ctx.Err())
	}
	if wheelLen() != 0 {
		t.Fatal("on the wheel though the parent's deadline comes first")
	}
}

// Calls one after another, each the earliest while it runs, leave the
// timer armed for the first: it is moved only for a deadline before the
// one it is armed for, and a firing with nothing due re-arms it for the
// next call, which still ends on time.
func TestDeadlineWheelMovesOnlyForEarlier(t *testing.T) {
	var w deadlineWheel
	call := func(d time.Duration) *deadlineCtx {
		inner, cancel := context.WithCancelCause(context.Background())
		c := &deadlineCtx{Context: inner, cancel: cancel, cause: errors.New("timeout")}
		c.d = deadline{at: time.Now().Add(d), expire: c}
		w.add(&c.d)
		return c
	}
	for range 100 {
		w.remove(&call(time.Hour).d)
	}
	if w.moves != 1 {
		t.Errorf("the timer was armed %d times for 100 calls one after another, want 1", w.moves)
	}
	w.remove(&call(time.Minute).d) // before the armed hour: moved
	if w.moves != 2 {
		t.Errorf("a call due before the armed timer did not move it (%d moves)", w.moves)
	}
	w.remove(&call(20 * time.Millisecond).d)
	late := call(60 * time.Millisecond) // after the armed 20 ms: not moved, but ends on time
	select {
	case <-late.Done():
		if context.Cause(late) == nil || !late.fired.Load() {
			t.Errorf("ended with %v, not by its deadline", context.Cause(late))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a call after an early firing never timed out")
	}
}
