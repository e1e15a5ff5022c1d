package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// agentLinked is the context every tool of an agent context runs with: the
// caller's context, also cancelled when the agent context is torn down
// (st.ctx), so that a forced teardown reaches in-process Go tools too, not
// only the providers that link themselves. It holds no per-call state:
// calls with the same caller context share one, and the in-process fast
// path allocates nothing.
type agentLinked struct {
	parent context.Context
	agent  context.Context // st.ctx

	merged atomic.Pointer[chan struct{}] // Done of a cancellable parent, made on first use
}

// linkContext returns ctx linked to the agent context, reusing the last
// link made for the same caller context.
func (st *agentState) linkContext(ctx context.Context) context.Context {
	if c := st.linked.Load(); c != nil && sameContext(c.parent, ctx) {
		return c
	}
	return st.newLink(ctx)
}

// newLink is linkContext's slow path, kept apart so that the fast one inlines.
func (st *agentState) newLink(ctx context.Context) context.Context {
	c := &agentLinked{parent: ctx, agent: st.ctx}
	st.linked.Store(c)
	return c
}

// sameContext reports whether a and b are one interface value: the same
// dynamic type and the same data word. That is == for pointers (every
// cancellable context), costs two word compares, and cannot panic the way
// == does on a non-comparable type; equal values boxed apart merely miss.
func sameContext(a, b context.Context) bool {
	wa, wb := (*[2]unsafe.Pointer)(unsafe.Pointer(&a)), (*[2]unsafe.Pointer)(unsafe.Pointer(&b))
	return wa[0] == wb[0] && wa[1] == wb[1] // word by word: an array == calls memequal
}

func (c *agentLinked) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *agentLinked) Value(key any) any           { return c.parent.Value(key) }

func (c *agentLinked) Err() error {
	if err := c.parent.Err(); err != nil {
		return err
	}
	return c.agent.Err()
}

func (c *agentLinked) Done() <-chan struct{} {
	if c.parent.Done() == nil {
		return c.agent.Done() // the common case: nothing to merge
	}
	if ch := c.merged.Load(); ch != nil {
		return *ch
	}
	ch := make(chan struct{})
	if !c.merged.CompareAndSwap(nil, &ch) {
		return *c.merged.Load()
	}
	var once sync.Once
	var mu sync.Mutex
	var stops []func() bool
	fire := func() {
		once.Do(func() { close(ch) })
		mu.Lock()
		defer mu.Unlock()
		for _, stop := range stops {
			stop() // drop the other registration: a long-lived parent keeps nothing
		}
	}
	s1 := context.AfterFunc(c.parent, fire)
	s2 := context.AfterFunc(c.agent, fire)
	mu.Lock()
	stops = []func() bool{s1, s2}
	mu.Unlock()
	select {
	case <-ch: // fired before stops were known
		s1()
		s2()
	default:
	}
	return ch
}

// AfterFunc lets contexts derived from this one (a tool's own timeouts)
// register without a goroutine each; the context package looks for it.
func (c *agentLinked) AfterFunc(f func()) (stop func() bool) {
	if c.parent.Done() == nil {
		return context.AfterFunc(c.agent, f)
	}
	var once sync.Once
	run := func() { once.Do(f) }
	s1 := context.AfterFunc(c.parent, run)
	s2 := context.AfterFunc(c.agent, run)
	return func() bool {
		a, b := s1(), s2()
		return a && b
	}
}
