package runtime

import (
	"context"
	"errors"
)

// queue bounds the concurrent calls of a server or tool. It is shared by
// every session of a Pool; waiting is cancellable by the caller's context
// and by the caller's session closing.
type queue struct {
	name  string
	slots chan struct{}
}

func newQueue(name string, n int) *queue {
	return &queue{name: name, slots: make(chan struct{}, max(n, 1))}
}

var errSessionClosed = errors.New("agent context closed")

// acquire takes a slot, or fails when ctx or done ends first.
func (q *queue) acquire(ctx context.Context, done <-chan struct{}) error {
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
		return errSessionClosed
	}
}

func (q *queue) release() { <-q.slots }
