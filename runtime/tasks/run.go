package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// watchEvery is how often the replica running a task looks for the
// host's answers and cancel flag in the store.
const watchEvery = 200 * time.Millisecond

// running is a task this replica runs.
type running struct {
	b      *Board
	id     string
	cancel context.CancelCauseFunc
	caps   *mcp.ClientCapabilities // what the host declared it can answer

	mu      sync.Mutex
	next    int
	pending map[string]chan json.RawMessage // questions asked, by key
	seen    int                             // answer sets delivered
	poke    chan struct{}
	ended   chan struct{} // closed when the run is over and settled
}

// errCancelled is the cause of a run the host cancelled.
var errCancelled = errors.New("task cancelled by the host")

// start runs a task's call in the background: it keeps the lease, takes
// the host's answers and cancel flag from the board, and settles the task
// when the call ends.
func start(b *Board, rec *Record, caps *mcp.ClientCapabilities, run func(ctx context.Context, c mcpconn.Caller) (*mcp.CallToolResult, error),
	hold func(context.CancelFunc) func(), log *slog.Logger) *running {
	ctx, cancel := context.WithCancelCause(context.Background())
	t := &running{b: b, id: rec.ID, cancel: cancel, caps: caps, pending: map[string]chan json.RawMessage{}, poke: make(chan struct{}, 1)}
	t.ended = make(chan struct{})
	done := hold(func() { cancel(errShutdown) })
	go t.watch(ctx, t.ended)
	go func() {
		defer done()
		defer close(t.ended)
		res, err := t.call(ctx, run)
		t.settle(ctx, res, err, log)
	}()
	return t
}

// settle writes how the task's call ended to the board; ctx is the run's,
// whose cause says whether the host cancelled it or the agent stopped it.
func (t *running) settle(ctx context.Context, res *mcp.CallToolResult, err error, log *slog.Logger) {
	b := t.b
	// The store is written even after the run's context ended.
	sctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	var serr error
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCancelled):
		// Cancel settled it already.
	case cause != nil:
		serr = b.Fail(sctx, t.id, &Error{Code: codeInternal, Message: "the task stopped: " + cause.Error()})
	case err != nil:
		e := &Error{Code: codeInternal, Message: err.Error()}
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			e.Code, e.Message = je.Code, je.Message
		}
		serr = b.Fail(sctx, t.id, e)
	default:
		v, merr := json.Marshal(res)
		if merr != nil {
			serr = b.Fail(sctx, t.id, &Error{Code: codeInternal, Message: "result: " + merr.Error()})
		} else {
			serr = b.Complete(sctx, t.id, v)
		}
	}
	if serr != nil {
		log.Error("tasks.settle", "task", t.id, "error", serr)
	}
	t.cancel(nil)
}

var errShutdown = errors.New("the agent is shutting down")

// call runs the task's call; a panic past the runtime's own recovery is
// the task's failure, not the process's.
func (t *running) call(ctx context.Context, run func(ctx context.Context, c mcpconn.Caller) (*mcp.CallToolResult, error)) (res *mcp.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("task panicked: %v", p)
		}
	}()
	return run(ctx, t)
}

// watch keeps the lease and follows the board until the run ends.
func (t *running) watch(ctx context.Context, ended <-chan struct{}) {
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	renewEvery := t.b.lease / 3
	lastRenew := time.Now()
	for {
		select {
		case <-ended:
			return
		case <-tick.C:
		case <-t.poke:
		}
		if time.Since(lastRenew) >= renewEvery {
			if t.b.renew(ctx, t.id) == nil {
				lastRenew = time.Now()
			}
		}
		if c, err := t.b.Cancelled(ctx, t.id); err == nil && c {
			t.cancel(errCancelled)
			return
		}
		t.deliver(ctx)
	}
}

// wake makes the watcher look now (a cancel or answer through this replica).
func (t *running) wake() {
	select {
	case t.poke <- struct{}{}:
	default:
	}
}

// deliver hands new answers to the questions waiting for them.
func (t *running) deliver(ctx context.Context) {
	sets, err := t.b.Answers(ctx, t.id)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for ; t.seen < len(sets); t.seen++ {
		for k, a := range sets[t.seen] {
			if ch := t.pending[k]; ch != nil {
				ch <- a
				delete(t.pending, k)
			}
		}
	}
}

// ask puts a question on the board and waits for the host's answer.
func (t *running) ask(ctx context.Context, method string, q mcp.InputRequest) (json.RawMessage, error) {
	t.mu.Lock()
	t.next++
	key := method + "-" + strconv.Itoa(t.next)
	ch := make(chan json.RawMessage, 1)
	t.pending[key] = ch
	t.mu.Unlock()
	wire, err := json.Marshal(mcp.InputRequestMap{key: q})
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(wire, &m); err != nil {
		return nil, err
	}
	if err := t.b.Ask(ctx, t.id, key, m[key]); err != nil {
		return nil, err
	}
	select {
	case a := <-ch:
		return a, nil
	case <-ctx.Done():
		t.mu.Lock()
		delete(t.pending, key)
		t.mu.Unlock()
		wctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer stop()
		_ = t.b.Withdraw(wctx, t.id, key)
		return nil, context.Cause(ctx)
	}
}

// A task's call asks its host through the task: progress and log
// messages have no request to go with, so they are dropped; sampling,
// elicitation and roots become the task's input requests.
var _ mcpconn.Caller = (*running)(nil)

func (t *running) WantsProgress() bool                                { return false }
func (t *running) Progress(context.Context, float64, float64, string) {}
func (t *running) Log(context.Context, *mcp.LoggingMessageParams)     {}

func (t *running) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if t.caps == nil || t.caps.Sampling == nil {
		return nil, errors.New("sampling: the host did not declare it can sample")
	}
	b, err := t.ask(ctx, "sampling", p)
	if err != nil {
		return nil, err
	}
	return mcpconn.SamplingAnswer(b)
}

func (t *running) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if t.caps == nil || t.caps.Elicitation == nil {
		return mcpconn.Decline("the host did not declare it can elicit"), nil
	}
	b, err := t.ask(ctx, "elicitation", p)
	if err != nil {
		return nil, err
	}
	var res mcp.ElicitResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("elicitation answer: %w", err)
	}
	return &res, nil
}

// ListRoots asks the host for its roots.
func (t *running) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	if t.caps == nil || (t.caps.RootsV2 == nil && !t.caps.Roots.ListChanged) {
		return nil, errors.New("roots: the host did not declare roots")
	}
	b, err := t.ask(ctx, "roots", &mcp.ListRootsParams{})
	if err != nil {
		return nil, err
	}
	var res mcp.ListRootsResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("roots answer: %w", err)
	}
	return &res, nil
}
