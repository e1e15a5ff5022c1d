package runtime

import (
	"fmt"

	"github.com/toolgen-dev/toolgen/runtime/store"
)

// panicError is a tool's panic, caught: the call ends with its text, and
// the Result is marked Internal.
type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("tool panicked: %v", e.value) }

func panicked(v any) error { return &panicError{v} }

// SharedStore is the store the replicas of this agent share
// (Options.Store); nil when everything stays in this process. Extensions
// that keep state beyond one request (runtime/tasks) put it there.
func (s *Session) SharedStore() store.Store { return s.opts.Store }
