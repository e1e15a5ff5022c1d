package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Two sessions on one shared store stand for two replicas: an output
// spilled by one is read through the other's output_read, by the same
// caller only.
func TestSharedSpillAcrossSessions(t *testing.T) {
	shared := store.NewMemory()
	big := strings.Repeat("0123456789", 30)
	withStore := func(o *Options) { o.Store = shared }
	a := spillFixture(t, big, 64, withStore)
	b := spillFixture(t, big, 64, withStore)
	alice := WithCallerID(context.Background(), "alice")

	res := a.Call(alice, "big", json.RawMessage(`{}`))
	var h struct {
		ToolOutput struct{ Handle string } `json:"tool_output"`
	}
	if err := json.Unmarshal([]byte(mustOK(t, res)), &h); err != nil || !strings.HasPrefix(h.ToolOutput.Handle, "out-") {
		t.Fatalf("not a shared handle: %v %s", err, res.Result)
	}
	args, _ := json.Marshal(map[string]any{"handle": h.ToolOutput.Handle, "limit": 20})
	page := mustOK(t, b.Call(alice, decl.ToolOutputRead, args))
	if !strings.Contains(page, `"content":"01234567890123456789"`) || !strings.Contains(page, `"total_bytes":300`) {
		t.Fatalf("page read on the other session: %s", page)
	}
	// Another caller does not find it, even with the handle.
	bob := WithCallerID(context.Background(), "bob")
	if r := b.Call(bob, decl.ToolOutputRead, args); r.OK || !strings.Contains(r.Error, "unknown output handle") {
		t.Fatalf("bob read alice's output: %+v", r)
	}
	// Without a store, the other session has no such handle (today's
	// behaviour, kept).
	c := spillFixture(t, big, 64, nil)
	if r := c.Call(alice, decl.ToolOutputRead, args); r.OK {
		t.Fatal("a session without the store read a shared handle")
	}
}

// With a store, the context budget is the caller's across sessions
// (replicas); without one it stays per session.
func TestBudgetPerCallerAcrossSessions(t *testing.T) {
	out := strings.Repeat("x", 40) // 10 tokens
	mk := func(o func(*Options)) *Session {
		f := newFixture(decl.Agent{Name: "a", Use: useTools("big")}).withTools(decl.Tool{Name: "big", Kind: decl.KindGo,
			Go: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(out), nil }})
		f.reg.Defaults.ContextBudget = 25
		opts := f.opts(&events{})
		if o != nil {
			o(&opts)
		}
		return open(t, f.reg, "a", opts)
	}
	shared := store.NewMemory()
	a, b := mk(func(o *Options) { o.Store = shared }), mk(func(o *Options) { o.Store = shared })
	alice := WithCallerID(context.Background(), "alice")
	mustOK(t, a.Call(alice, "big", nil))
	mustOK(t, b.Call(alice, "big", nil))
	if r := a.Call(alice, "big", nil); r.OK || !strings.Contains(r.Error, "budget exceeded") {
		t.Fatalf("third call of alice over two sessions: %+v; want the budget refused", r)
	}
	bob := WithCallerID(context.Background(), "bob")
	mustOK(t, b.Call(bob, "big", nil)) // bob has his own

	// No store: each session has its own budget, whoever calls.
	c, d := mk(nil), mk(nil)
	mustOK(t, c.Call(alice, "big", nil))
	mustOK(t, c.Call(alice, "big", nil))
	mustOK(t, d.Call(alice, "big", nil))
}

// A rate limit counts each caller's calls, across sessions sharing a
// store; the refusal says who and how much.
func TestRateLimitPerCaller(t *testing.T) {
	shared := store.NewMemory()
	ev := &events{}
	mk := func() *Session {
		f := newFixture(decl.Agent{Name: "a", Use: useTools("echo")}).withTools(decl.Tool{Name: "echo", Kind: decl.KindGo,
			Go: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`"ok"`), nil }})
		o := f.opts(ev)
		o.Store = shared
		o.RateLimit = RateLimit{Calls: 3, Per: time.Minute}
		return open(t, f.reg, "a", o)
	}
	a, b := mk(), mk()
	alice := WithCallerID(context.Background(), "alice")
	for i, s := range []*Session{a, b, a} {
		if r := s.Call(alice, "echo", nil); !r.OK {
			t.Fatalf("call %d: %s", i, r.Error)
		}
	}
	r := b.Call(alice, "echo", nil)
	if r.OK || !strings.Contains(r.Error, `rate limit exceeded: caller "alice" may make 3 tool calls per 1m0s`) {
		t.Fatalf("fourth call: %+v", r)
	}
	if r := a.Call(context.Background(), "echo", nil); !r.OK {
		t.Fatalf("the local caller is another caller: %s", r.Error)
	}
	ev.requireOne(t, EventToolCall, "caller", "alice", "status", "failed")
	ev.requireOne(t, EventToolCall, "caller", LocalCaller)
}

// A store that does not answer fails the calls that need it with an error
// naming it; calls that do not touch it go on.
func TestStoreDownFailsOnlyWhatNeedsIt(t *testing.T) {
	down := downStore{store.NewMemory()}
	s := spillFixture(t, strings.Repeat("y", 200), 64, func(o *Options) { o.Store = down })
	r := call(t, s, "big", `{}`)
	if r.OK || !strings.Contains(r.Error, "shared store redis://test:1/0 is unavailable") {
		t.Fatalf("spill with the store down: %+v", r)
	}
	if r := call(t, s, decl.ToolOutputRead, `{"handle":"out-1"}`); r.OK || !strings.Contains(r.Error, "redis://test:1/0") {
		t.Fatalf("output_read with the store down: %+v", r)
	}
}

// downStore is a store whose every operation fails as an unreachable
// Redis does.
type downStore struct{ *store.Memory }

func (downStore) Name() string { return "redis://test:1/0" }
func (d downStore) err() error {
	return &store.Unavailable{Store: d.Name(), Err: context.DeadlineExceeded}
}
func (d downStore) PutBlob(context.Context, string, []byte, time.Duration) error { return d.err() }
func (d downStore) ReadBlob(context.Context, string, int, int) ([]byte, int, error) {
	return nil, 0, d.err()
}
func (d downStore) Take(context.Context, string, int64, int64, time.Duration) (bool, int64, error) {
	return false, 0, d.err()
}
