package runtime

import (
	"context"
	"sync"
)

// linkedCtx is a caller's context merged with its agent context
// (agentLinked.link): a child of the caller's, cancelled also at teardown.
type linkedCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// agentLinks are an agent context's merged caller contexts, which its
// teardown cancels. Those whose caller's context has ended are dropped
// in sweeps as the list grows, rather than one by one when they end:
// hearing of that end would take a goroutine (context.AfterFunc) per
// call.
type agentLinks struct {
	mu      sync.Mutex
	live    []*linkedCtx
	sweepAt int  // sweep when live reaches this many
	watched bool // the teardown watch is registered
	ended   bool // the agent context has ended
}

// minSweep is the list's length below which it is never swept.
const minSweep = 64

func (l *agentLinks) add(agent context.Context, in *linkedCtx) {
	l.mu.Lock()
	if !l.watched {
		l.watched = true
		context.AfterFunc(agent, l.end) // once per agent context
	}
	if l.ended {
		l.mu.Unlock()
		in.cancel()
		return
	}
	if len(l.live) >= l.sweepAt {
		keep := l.live[:0]
		for _, x := range l.live {
			if x.ctx.Err() == nil {
				keep = append(keep, x)
			}
		}
		clear(l.live[len(keep):])
		l.live = keep
		l.sweepAt = max(2*len(keep), minSweep)
	}
	l.live = append(l.live, in)
	l.mu.Unlock()
}

// end cancels every merged context still open, and any linked later.
func (l *agentLinks) end() {
	l.mu.Lock()
	live := l.live
	l.live, l.ended = nil, true
	l.mu.Unlock()
	for _, in := range live {
		in.cancel()
	}
}
