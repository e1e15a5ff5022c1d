package tasks

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Status is where a task stands.
type Status string

const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal: the task will not change any more.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// Record is a task as the store keeps it. Its result, once completed, is
// a blob of its own (resultKey).
type Record struct {
	ID      string    `json:"id"`
	Status  Status    `json:"status"`
	Message string    `json:"message,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	TTL     int64     `json:"ttlMs"`
	Poll    int64     `json:"pollMs"`
	// Caller is who created it (the authenticated user, if any): only
	// they may see or steer it.
	Caller string `json:"caller,omitempty"`
	// Asks are the questions the task waits on, by key, each in its wire
	// form ({"method": …, "params": …}).
	Asks  map[string]json.RawMessage `json:"asks,omitempty"`
	Error *Error                     `json:"error,omitempty"`
	// Route is set for an upstream server's task passed through: its
	// state is the server's, read there at every tasks/get.
	Route *Route `json:"route,omitempty"`
}

// Error is a failed task's protocol-level error (JSON-RPC shape).
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// expires is when the record and everything of it leave the store.
func (r *Record) expires() time.Time { return r.Created.Add(time.Duration(r.TTL) * time.Millisecond) }

// Board is the task state every replica shares, on a store.Store: a task
// created through one replica is polled, answered, cancelled and
// collected through any. The replica that runs a task keeps its lease
// alive; a task whose lease lapsed (its replica died) reads as failed.
type Board struct {
	st    store.Store
	lease time.Duration
	now   func() time.Time
}

// Keys of one task, under store's "task/" prefix.
func recordKey(id string) string  { return prefix + id }
func resultKey(id string) string  { return prefix + id + "/result" }
func cancelKey(id string) string  { return prefix + id + "/cancel" }
func answersKey(id string) string { return prefix + id + "/answers" }
func leaseKey(id string) string   { return prefix + id + "/lease" }
func collectKey(id string) string { return prefix + id + "/collected" }

const prefix = "task/"

// DefaultLease is how long a task stays owned without a heartbeat.
const DefaultLease = 6 * time.Second

// maxAnswers bounds the answers list of one task.
const maxAnswers = 1000

// NewBoard keeps tasks in st; lease 0 is DefaultLease.
func NewBoard(st store.Store, lease time.Duration) *Board {
	if lease <= 0 {
		lease = DefaultLease
	}
	return &Board{st: st, lease: lease, now: time.Now}
}

// ErrUnknown: no such task (never created, expired, or another caller's).
var ErrUnknown = errors.New("no such task")

// Create writes a new working task and takes its lease; it returns once
// the store holds both, so a tasks/get through any replica finds it.
func (b *Board) Create(ctx context.Context, caller string, ttl, poll time.Duration) (*Record, error) {
	now := b.now().UTC().Truncate(time.Millisecond)
	r := &Record{ID: rand.Text(), Status: Working, Created: now, Updated: now, TTL: ttl.Milliseconds(), Poll: poll.Milliseconds(), Caller: caller}
	if err := b.renew(ctx, r.ID); err != nil {
		return nil, err
	}
	v, _ := json.Marshal(r)
	ok, err := b.st.SetNew(ctx, recordKey(r.ID), v, ttl)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("task id %s taken", r.ID)
	}
	return r, nil
}

// renew (re)takes a task's lease.
func (b *Board) renew(ctx context.Context, id string) error {
	return b.st.Set(ctx, leaseKey(id), []byte("1"), b.lease)
}

// Get reads a task. A live task whose lease lapsed is settled as failed
// here: its replica is gone and nobody will finish it.
func (b *Board) Get(ctx context.Context, id, caller string) (*Record, error) {
	r, _, err := b.read(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Caller != caller {
		return nil, ErrUnknown
	}
	if r.Status.Terminal() || r.Route != nil {
		return r, nil // a routed task's lease is the upstream server's
	}
	_, held, err := b.st.Get(ctx, leaseKey(id))
	if err != nil || held {
		return r, err
	}
	return b.change(ctx, id, func(r *Record) bool {
		if r.Status.Terminal() {
			return false
		}
		r.Status, r.Asks = Failed, nil
		r.Error = &Error{Code: codeInternal, Message: "the agent replica running this task stopped before it finished"}
		return true
	})
}

func (b *Board) read(ctx context.Context, id string) (*Record, []byte, error) {
	v, ok, err := b.st.Get(ctx, recordKey(id))
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, ErrUnknown
	}
	var r Record
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, nil, fmt.Errorf("task %s: unreadable record: %w", id, err)
	}
	return &r, v, nil
}

// change applies edit to a task atomically (compare and swap, retried);
// edit returns false to leave it as it is. It returns the task after.
func (b *Board) change(ctx context.Context, id string, edit func(*Record) bool) (*Record, error) {
	for range 100 {
		r, old, err := b.read(ctx, id)
		if err != nil {
			return nil, err
		}
		if !edit(r) {
			return r, nil
		}
		r.Updated = b.now().UTC().Truncate(time.Millisecond)
		v, _ := json.Marshal(r)
		left := r.expires().Sub(b.now())
		if left <= 0 {
			return nil, ErrUnknown
		}
		ok, err := b.st.Swap(ctx, recordKey(id), old, v, left)
		if err != nil {
			return nil, err
		}
		if ok {
			return r, nil
		}
	}
	return nil, fmt.Errorf("task %s: too many concurrent changes", id)
}

// Result reads a completed task's result.
func (b *Board) Result(ctx context.Context, id string) (json.RawMessage, error) {
	_, size, err := b.st.ReadBlob(ctx, resultKey(id), 0, 0)
	if err != nil {
		return nil, err
	}
	chunk, _, err := b.st.ReadBlob(ctx, resultKey(id), 0, size)
	return chunk, err
}

// Answer takes the host's answers (tasks/update): the questions they
// answer leave the task at once, the answers go to the replica running
// it. Answers to questions the task does not wait on are ignored.
func (b *Board) Answer(ctx context.Context, id, caller string, answers map[string]json.RawMessage) error {
	r, err := b.Get(ctx, id, caller)
	if err != nil {
		return err
	}
	if r.Status.Terminal() {
		return nil
	}
	taken := map[string]json.RawMessage{}
	_, err = b.change(ctx, id, func(r *Record) bool {
		clear(taken)
		for k, a := range answers {
			if _, ok := r.Asks[k]; ok {
				taken[k] = a
				delete(r.Asks, k)
			}
		}
		if len(taken) == 0 {
			return false
		}
		if len(r.Asks) == 0 && r.Status == InputRequired {
			r.Status = Working
		}
		return true
	})
	if err != nil || len(taken) == 0 {
		return err
	}
	v, _ := json.Marshal(taken)
	return b.st.Append(ctx, answersKey(id), v, maxAnswers, time.Until(r.expires()))
}

// Cancel settles a live task as cancelled and raises its cancel flag for
// the replica running it; a task already over is left as it is.
func (b *Board) Cancel(ctx context.Context, id, caller string) error {
	r, err := b.Get(ctx, id, caller)
	if err != nil || r.Status.Terminal() {
		return err
	}
	if _, err := b.change(ctx, id, func(r *Record) bool {
		if r.Status.Terminal() {
			return false
		}
		r.Status, r.Asks, r.Message = Cancelled, nil, "cancelled by the host"
		return true
	}); err != nil {
		return err
	}
	return b.st.Set(ctx, cancelKey(id), []byte("1"), time.Until(r.expires()))
}

// Cancelled reports whether a task's cancel flag is up.
func (b *Board) Cancelled(ctx context.Context, id string) (bool, error) {
	_, ok, err := b.st.Get(ctx, cancelKey(id))
	return ok, err
}

// Answers are the answer sets given to a task, oldest first.
func (b *Board) Answers(ctx context.Context, id string) ([]map[string]json.RawMessage, error) {
	list, err := b.st.List(ctx, answersKey(id), maxAnswers)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]json.RawMessage, 0, len(list))
	for _, v := range list {
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// Ask adds a question the task waits on.
func (b *Board) Ask(ctx context.Context, id, key string, q json.RawMessage) error {
	_, err := b.change(ctx, id, func(r *Record) bool {
		if r.Status.Terminal() {
			return false
		}
		if r.Asks == nil {
			r.Asks = map[string]json.RawMessage{}
		}
		r.Asks[key], r.Status = q, InputRequired
		return true
	})
	return err
}

// Withdraw removes a question nobody needs answered any more.
func (b *Board) Withdraw(ctx context.Context, id, key string) error {
	_, err := b.change(ctx, id, func(r *Record) bool {
		if _, ok := r.Asks[key]; !ok {
			return false
		}
		delete(r.Asks, key)
		if len(r.Asks) == 0 && r.Status == InputRequired {
			r.Status = Working
		}
		return true
	})
	return err
}

// Complete stores a task's result and settles it, unless it is already
// over (cancelled meanwhile).
func (b *Board) Complete(ctx context.Context, id string, result json.RawMessage) error {
	r, _, err := b.read(ctx, id)
	if err != nil || r.Status.Terminal() {
		return err
	}
	if err := b.st.PutBlob(ctx, resultKey(id), result, time.Until(r.expires())); err != nil {
		return err
	}
	return b.settle(ctx, id, Completed, nil)
}

// Fail settles a task as failed with e.
func (b *Board) Fail(ctx context.Context, id string, e *Error) error {
	return b.settle(ctx, id, Failed, e)
}

func (b *Board) settle(ctx context.Context, id string, s Status, e *Error) error {
	_, err := b.change(ctx, id, func(r *Record) bool {
		if r.Status.Terminal() {
			return false
		}
		r.Status, r.Asks, r.Error = s, nil, e
		return true
	})
	if err == nil {
		err = b.st.Delete(ctx, leaseKey(id))
	}
	return err
}

// JSON-RPC codes of the extension.
const (
	codeInvalidParams     = -32602
	codeInternal          = -32603
	codeMissingCapability = -32021
	codeHeaderMismatch    = -32020
)

// firstCollect reports whether this is the first collection of a routed
// task's result, on any replica: its output is counted once.
func (b *Board) firstCollect(ctx context.Context, r *Record) (bool, error) {
	ttl := time.Until(r.expires())
	if ttl <= 0 {
		ttl = time.Minute
	}
	return b.st.SetNew(ctx, collectKey(r.ID), []byte("1"), ttl)
}
