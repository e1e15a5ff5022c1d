package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Callers are named: serve puts the inbound token's identity on each
// call's ctx, budgets and rate limits count per caller, and every call's
// event carries the name. A call without one is LocalCaller's.

// LocalCaller is the one caller of an agent without inbound auth.
const LocalCaller = pipeline.LocalCaller

// WithCallerID names who makes the calls made with ctx.
func WithCallerID(ctx context.Context, id string) context.Context {
	return pipeline.WithCallerID(ctx, id)
}

// CallerID is the caller ctx names, LocalCaller if none.
func CallerID(ctx context.Context) string { return pipeline.CallerID(ctx) }

// RateLimit caps the tool calls of each caller: at most Calls in a window
// of Per that starts at the caller's first call. Zero Calls: no limit.
type RateLimit struct {
	Calls int
	Per   time.Duration
}

// on reports whether r limits anything: without it a call skips the
// limit's step with one compare.
func (r RateLimit) on() bool { return r.Calls > 0 && r.Per > 0 }

func (r RateLimit) String() string { return fmt.Sprintf("%d/%s", r.Calls, r.Per) }

// DefaultBudgetWindow is how long a caller's context budget counts in a
// shared store when Options.BudgetWindow is not set.
const DefaultBudgetWindow = time.Hour

// limiter is the store in which an agent counts per-caller limits: the
// session's Options.Store, or one for the process when there is none.
func (st *agentState) limiter() store.Store {
	if s := st.s.opts.Store; s != nil {
		return s
	}
	return processLimits
}

// processLimits counts rate limits of sessions without a Store: callers
// of one process share it, as replicas share a Store.
var processLimits = store.NewMemory()

// rateLimited refuses a call past the caller's rate limit; nil lets it
// through. A store that does not answer refuses it too, saying so: a
// limit that cannot be counted is not skipped.
// Call it only when the session has a limit (RateLimit.on).
func (st *agentState) rateLimited(ctx context.Context) error {
	rl := st.s.opts.RateLimit
	caller := CallerID(ctx)
	ok, _, err := st.limiter().Take(ctx, store.PrefixRate+st.agent.Name+"/"+caller, 1, int64(rl.Calls), rl.Per)
	if err != nil {
		return fmt.Errorf("rate limit of caller %q cannot be checked: %w", caller, err)
	}
	if !ok {
		return fmt.Errorf("rate limit exceeded: caller %q may make %d tool calls per %s; retry later", caller, rl.Calls, rl.Per)
	}
	return nil
}

// chargeBudget counts an output against the context budget: the
// session's own, or with a Store the caller's across every replica.
func (st *agentState) chargeBudget(ctx context.Context, bytes int) (used int64, err error) {
	shared := st.s.opts.Store
	if shared == nil {
		err = st.budget.ChargeBytes(bytes)
		return st.budget.Used(), err
	}
	window := st.s.opts.BudgetWindow
	if window <= 0 {
		window = DefaultBudgetWindow
	}
	caller := CallerID(ctx)
	ok, used, err := shared.Take(ctx, store.PrefixBudget+st.agent.Name+"/"+caller, int64(bytes+3)/4, st.budget.Limit, window)
	if err != nil {
		return used, fmt.Errorf("context budget of caller %q cannot be counted: %w", caller, err)
	}
	if !ok {
		return used, pipeline.ErrBudget
	}
	return used, nil
}
