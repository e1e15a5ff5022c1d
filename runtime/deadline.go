package runtime

import (
	"container/heap"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// deadlines is the one timer behind every tool timeout of the process: a
// heap of calls ordered by deadline and one time.Timer armed for the
// earliest. A context.WithTimeout per call started, reset and stopped a
// runtime timer of its own, about a twentieth of a proxied call's time;
// here a call that ends in time is a heap push and pop, and the timer is
// only moved when a call's deadline comes before the one it is armed for
// (with one timeout per tool, hardly ever).
var deadlines deadlineWheel

type deadlineWheel struct {
	mu    sync.Mutex
	calls deadlineHeap
	timer *time.Timer // fires at armed; made on first use
	// armed is when the timer fires, zero when it is not armed: at or
	// before calls[0].at. A call whose deadline comes later leaves the
	// timer be, and a firing with nothing due re-arms it: calls one after
	// another, each the earliest while it runs, moved it every time.
	armed time.Time
	moves int // how often add armed the timer (tests)
}

// deadline is a call's place in the wheel: when it is due, and what ends
// the call then (a context under a timeout, or a forwarded call).
type deadline struct {
	at     time.Time
	i      int // index in the heap; -1 once out of it (wheel.mu)
	expire expirer
}

// expirer ends a call whose deadline came, on the wheel's goroutine.
type expirer interface{ expire() }

// deadlineCtx is a call's context under a tool timeout: its parent's,
// also cancelled at the deadline with the tool's "timeout after …" cause.
// As context.WithTimeoutCause's, its Err is DeadlineExceeded once the
// deadline cancelled it and Canceled when its parent or stop did first.
type deadlineCtx struct {
	context.Context // WithCancelCause(parent): Done, Value, the cause
	cancel          context.CancelCauseFunc
	d               deadline
	cause           error
	fired           atomic.Bool // the deadline came first
}

// withTimeout is context.WithTimeoutCause(parent, d, cause) on the shared
// wheel. stop ends the call: it leaves the wheel and its context is
// cancelled.
func withTimeout(parent context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	at := time.Now().Add(d)
	if pd, ok := parent.Deadline(); ok && !pd.After(at) {
		return context.WithCancel(parent) // the parent's deadline comes first, as WithDeadline does
	}
	inner, cancel := context.WithCancelCause(parent)
	c := &deadlineCtx{Context: inner, cancel: cancel, cause: cause}
	c.d = deadline{at: at, expire: c}
	deadlines.add(&c.d)
	return c, c.stop
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.d.at, true }

func (c *deadlineCtx) Err() error {
	err := c.Context.Err()
	if err != nil && c.fired.Load() && context.Cause(c.Context) == c.cause {
		return context.DeadlineExceeded // cancelled by the deadline, not before it
	}
	return err
}

func (c *deadlineCtx) stop() {
	deadlines.remove(&c.d)
	c.cancel(context.Canceled)
}

func (c *deadlineCtx) expire() {
	c.fired.Store(true) // before cancel: Err never sees Canceled for a deadline
	c.cancel(c.cause)
}

func (w *deadlineWheel) add(d *deadline) {
	w.mu.Lock()
	heap.Push(&w.calls, d)
	if d.i == 0 && (w.armed.IsZero() || d.at.Before(w.armed)) { // the earliest, before the timer
		if w.timer == nil {
			w.timer = time.AfterFunc(time.Until(d.at), w.fire)
		} else {
			w.timer.Reset(time.Until(d.at))
		}
		w.armed = d.at
		w.moves++
	}
	w.mu.Unlock()
}

// remove takes d out of the wheel, if it is in it.
func (w *deadlineWheel) remove(d *deadline) {
	w.mu.Lock()
	if d.i >= 0 {
		heap.Remove(&w.calls, d.i)
	}
	w.mu.Unlock()
}

// fire ends every call whose deadline has come and arms the timer for
// the next. A timer that fires early (moved meanwhile) only re-arms.
func (w *deadlineWheel) fire() {
	var due []expirer
	w.mu.Lock()
	w.armed = time.Time{}
	now := time.Now()
	for len(w.calls) > 0 && !w.calls[0].at.After(now) {
		due = append(due, heap.Pop(&w.calls).(*deadline).expire)
	}
	if len(w.calls) > 0 {
		w.timer.Reset(time.Until(w.calls[0].at))
		w.armed = w.calls[0].at
	}
	w.mu.Unlock()
	for _, e := range due {
		e.expire()
	}
}

// deadlineHeap orders calls by deadline (container/heap).
type deadlineHeap []*deadline

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *deadlineHeap) Push(x any) {
	d := x.(*deadline)
	d.i = len(*h)
	*h = append(*h, d)
}
func (h *deadlineHeap) Pop() any {
	old := *h
	d := old[len(old)-1]
	old[len(old)-1] = nil
	d.i = -1
	*h = old[:len(old)-1]
	return d
}
