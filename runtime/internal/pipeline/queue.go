package pipeline

import (
	"context"
	"errors"
)

// Queue bounds the concurrent calls of a server or tool. It is shared by
// every session of a Pool; waiting is cancellable by the caller's context
// and by the caller's session closing.
type Queue struct {
	Name  string
	slots chan struct{}
}

// NewQueue returns a queue of n slots (at least one).
func NewQueue(name string, n int) *Queue {
	return &Queue{Name: name, slots: make(chan struct{}, max(n, 1))}
}

// ErrClosed is the error of a call whose agent context closed first.
var ErrClosed = errors.New("agent context closed")

// Acquire takes a slot, or fails when ctx or done ends first.
func (q *Queue) Acquire(ctx context.Context, done <-chan struct{}) error {
	select {
	case q.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case q.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-done:
		return ErrClosed
	}
}

// Release gives the slot back.
func (q *Queue) Release() { <-q.slots }
