package tasks

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// A tool declared with task = "after_input" asks its questions first and
// then continues as a task (SEP-2663's composition with SEP-2322): for a
// host of the stateless revision that declared the extension, its call
// runs in input-required rounds like any other, and becomes a task when
// it calls runtime.ContinueAsTask: the host's pending round gets the
// CreateTaskResult, and the call runs on under the task.

// AfterInput is the task support of such a tool (hcl: task = "after_input").
const AfterInput = "after_input"

// takeAfterInput runs an after_input tool's call for a host that declared
// the extension. A host of an older revision gets a task at once, as for
// an optional one (it is asked by request meanwhile). A later round (with
// requestState) is left to the server, which resumes the parked call.
func (e *extension) takeAfterInput(ctx context.Context, sess serve.Session, call *serve.Call) (mcp.Result, bool, error) {
	if call.Rounds == nil {
		return nil, false, nil
	}
	if call.Request.Params.RequestState != "" {
		return nil, false, nil
	}
	res, err := call.Rounds(ctx, e.escalate(ctx, sess, call))
	return res, true, err
}

// escalate makes the running call a task when it asks to be one.
func (e *extension) escalate(ctx context.Context, sess serve.Session, call *serve.Call) serve.Escalate {
	owner := callerOf(context.WithValue(ctx, requestKey{}, mcp.Request(call.Request)))
	caps := call.Request.ClientCapabilities()
	return func(stop context.CancelFunc) (*serve.Escalation, error) {
		b := e.board(sess)
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rec, err := b.Create(sctx, owner, DefaultTTL, DefaultPoll)
		if err != nil {
			return nil, storeError("", err)
		}
		t, settle := adopt(b, rec, caps, stop, call.Hold, slog.Default())
		e.track(rec.ID, t)
		return &serve.Escalation{Caller: t, Answer: wire(rec, "task"), Settle: settle}, nil
	}
}

// adopt makes a call that is already running a task of b: as start, it
// keeps the lease and follows the host's answers and cancel flag (a
// cancel ends the call through stop); settle records how the call ended.
func adopt(b *Board, rec *Record, caps *mcp.ClientCapabilities, stop context.CancelFunc,
	hold func(context.CancelFunc) func(), log *slog.Logger) (*running, func(*mcp.CallToolResult, error)) {
	ctx, cancel := context.WithCancelCause(context.Background())
	t := &running{b: b, id: rec.ID, cancel: cancel, caps: caps, pending: map[string]chan json.RawMessage{}, poke: make(chan struct{}, 1)}
	t.ended = make(chan struct{})
	context.AfterFunc(ctx, stop)
	done := hold(func() { cancel(errShutdown) })
	go t.watch(ctx, t.ended)
	var once sync.Once
	return t, func(res *mcp.CallToolResult, err error) {
		once.Do(func() {
			defer done()
			defer close(t.ended)
			t.settle(ctx, res, err, log)
		})
	}
}
