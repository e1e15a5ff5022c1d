package loop

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// outcome is one call's result and how long it took.
type outcome struct {
	ToolOutcome
	latency time.Duration
}

// calls runs the calls of one answer, at most Parallel at once, and
// returns their outcomes in the calls' order. Every call gets the run's
// context: cancelling the run cancels the calls in flight.
func (r *run) calls(calls []model.ToolCall) []outcome {
	out := make([]outcome, len(calls))
	if len(calls) == 1 {
		r.call(calls, 0, out)
		return out
	}
	sem := make(chan struct{}, r.opts.Parallel)
	var wg sync.WaitGroup
	for i := range calls {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			r.call(calls, i, out)
		})
	}
	wg.Wait()
	return out
}

func (r *run) call(calls []model.ToolCall, i int, out []outcome) {
	if i >= r.opts.MaxToolCalls {
		out[i].ToolOutcome = ToolOutcome{IsError: true,
			Text: fmt.Sprintf("not run: the answer asked for %d tool calls and at most %d run per turn; ask for the rest in the next turn", len(calls), r.opts.MaxToolCalls)}
		return
	}
	c := calls[i]
	if err := r.ctx.Err(); err != nil {
		// Cancelled while it waited for a slot: it never starts.
		out[i].ToolOutcome = ToolOutcome{IsError: true, Text: fmt.Sprintf("not run: %v", context.Cause(r.ctx))}
		return
	}
	start := time.Now()
	defer func() {
		// A panicking Agent must not take the process down from a goroutine.
		if p := recover(); p != nil {
			out[i].ToolOutcome = ToolOutcome{IsError: true, Text: fmt.Sprintf("tool %q failed: %v", c.Name, p)}
		}
		out[i].latency = time.Since(start)
	}()
	out[i].ToolOutcome = r.a.Call(r.ctx, c.Name, c.Args)
}
