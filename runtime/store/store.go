// Package store is what replicas of one agent share: keys with a time to
// live, counters for budgets and rate limits, blobs for spilled outputs,
// and capped lists for events. The runtime uses a Store through this
// interface only.
//
// Memory (this package) is the embedded default: one process, nothing to
// install. A shared store lives in its own package that registers a URL
// scheme when a binary imports it, the way a database/sql driver does:
//
//	import _ "github.com/toolgen-dev/toolgen/runtime/store/redis"
//
//	st, err := store.Open(ctx, "redis://127.0.0.1:6379/0", os.Getenv)
//
// The runtime never imports a store client itself, so a binary that does
// not ask for one does not link it.
//
// Keys are plain strings; each feature keeps to its own prefix (Keys
// below), so tasks, request state and OAuth tokens can join later without
// clashing with what is there.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Store is a key/value store shared by every replica of an agent. Each
// method is one atomic step at the store; ttl 0 means no expiry.
type Store interface {
	// Name says which store this is, for error texts and logs: "memory",
	// or the URL without its password.
	Name() string

	// Get returns a key's value; ok is false if it is absent or expired.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Set writes a key.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// SetNew writes a key only if it is absent, and says whether it did:
	// creating a task, taking a lock.
	SetNew(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// Swap replaces a key's value only if it is old, and says whether it
	// did: a task's state moving on, a refreshed token replacing the
	// expired one.
	Swap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error)
	// Delete removes keys; absent ones are no error.
	Delete(ctx context.Context, keys ...string) error

	// Take adds n to a counter that lives for window (from its first
	// addition) unless the sum would pass limit; it returns whether it
	// added and the counter's value after. Budgets and rate limits use it,
	// so a limit holds across replicas.
	Take(ctx context.Context, key string, n, limit int64, window time.Duration) (ok bool, used int64, err error)

	// PutBlob stores a large value (a spilled output).
	PutBlob(ctx context.Context, key string, data []byte, ttl time.Duration) error
	// ReadBlob reads up to n bytes of a blob from offset, and its size;
	// ErrNotFound if it is absent.
	ReadBlob(ctx context.Context, key string, offset, n int) (chunk []byte, size int, err error)

	// Append adds a value at the end of a list kept to its newest max
	// entries (events).
	Append(ctx context.Context, key string, value []byte, max int, ttl time.Duration) error
	// List returns a list's newest n entries, oldest first.
	List(ctx context.Context, key string, n int) ([][]byte, error)

	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	Close() error
}

// ErrNotFound is ReadBlob's error for a blob that is not there.
var ErrNotFound = errors.New("not found")

// Unavailable is the error of a store that did not answer: it names the
// store, so that whoever reads it knows what to fix. Features that need
// the store return it; the rest of the agent keeps working.
type Unavailable struct {
	Store string // Name()
	Err   error
}

func (e *Unavailable) Error() string {
	return fmt.Sprintf("shared store %s is unavailable: %v", e.Store, e.Err)
}

func (e *Unavailable) Unwrap() error { return e.Err }

// Keys each feature uses, so that one store holds them all apart. Later
// features take a prefix of their own here: "task/" (tasks and their
// results), "state/" (the key protecting input-required request state),
// "oauth/" (upstream tokens, sealed with a key from the environment).
const (
	PrefixSpill  = "spill/"  // spilled outputs, by caller and handle
	PrefixBudget = "budget/" // context budgets, by agent, caller and window
	PrefixRate   = "rate/"   // rate limits, by caller and window
	PrefixEvents = "events/" // recent call events of every replica (runtime/internal/fleet)
	PrefixFleet  = "fleet/"  // replicas' heartbeats and the list of their ids
	PrefixRound  = "round/"  // input-required rounds passed between replicas (runtime/serve)
	PrefixState  = "state/"  // the key signing input-required request state
	PrefixOAuth  = "oauth/"  // upstream OAuth logins, sealed (Sealer), and their refresh locks
)
