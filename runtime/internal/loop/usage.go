package loop

import (
	"context"
	"sync"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// A run's tool calls carry its tally in their context. A sub-agent's run
// starts inside such a call (agent__<name>, spawn_agents: the runtime
// passes the call's context to the Runner), finds the tally and adds its
// whole usage when it ends; so a parent's Usage includes its children's,
// however deep, with no bookkeeping in the Runner.

type tallyKey struct{}

// tally sums the usage of the runs started under one run; parallel
// children add to it at once.
type tally struct {
	mu sync.Mutex
	u  model.Usage
}

func tallyFrom(ctx context.Context) *tally {
	t, _ := ctx.Value(tallyKey{}).(*tally)
	return t
}

func (t *tally) add(u model.Usage) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.u.Add(u)
	t.mu.Unlock()
}

func (t *tally) load() model.Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.u
}

// minus is a − b, for what the children used during one turn.
func minus(a, b model.Usage) model.Usage {
	return model.Usage{
		InputTokens:      a.InputTokens - b.InputTokens,
		OutputTokens:     a.OutputTokens - b.OutputTokens,
		CacheReadTokens:  a.CacheReadTokens - b.CacheReadTokens,
		CacheWriteTokens: a.CacheWriteTokens - b.CacheWriteTokens,
	}
}
