package serve

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// A call that asks first and continues as a task (SEP-2663 on SEP-2322):
// it runs in input-required rounds like any call of a stateless-revision
// host until it says it goes on as a task (runtime.ContinueAsTask). Then
// the extension that made it escalatable (runtime/tasks) takes it over:
// the host's pending request gets the task, the call keeps running, and
// what it asks from then on goes through the task.

// Escalate turns a running call into a task. cancel ends the call (the
// host cancelled the task, or the agent shuts down).
type Escalate func(cancel context.CancelFunc) (*Escalation, error)

// Escalation is a call become a task.
type Escalation struct {
	// Caller is what the call asks its host through from now on.
	Caller mcpconn.Caller
	// Answer answers the host's request that is waiting on the call
	// (CreateTaskResult).
	Answer mcp.Result
	// Settle gets how the call ended.
	Settle func(res *mcp.CallToolResult, err error)
}

// callEscalating runs req's call in rounds; a ContinueAsTask in it calls
// toTask.
func (s *Server) callEscalating(ctx context.Context, req *mcp.CallToolRequest, call *Call, toTask Escalate) (mcp.Result, error) {
	var caps *mcp.InitializeParams
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		caps = ss.InitializeParams()
	}
	r := s.rounds.start(func(ctx context.Context) (mcp.Result, error) {
		res, err := call.Run(withCaller(ctx, req), mcpconn.CallerFrom(ctx))
		if err != nil {
			return nil, err
		}
		return res, nil
	}, req.Params.InputResponses, caps, &s.parked, toTask)
	return s.rounds.wait(ctx, r)
}

// ContinueAsTask escalates the call of r, once; a call nothing made
// escalatable goes on as it is.
func (c *roundCaller) ContinueAsTask(context.Context) error {
	r := c.r
	if r.toTask == nil {
		return nil
	}
	r.mu.Lock()
	if r.esc != nil || r.escalating {
		r.mu.Unlock()
		return nil
	}
	if r.over {
		r.mu.Unlock()
		return errors.New("the call is over")
	}
	r.escalating = true
	r.mu.Unlock()
	esc, err := r.toTask(r.cancel)
	r.mu.Lock()
	r.esc, r.escalating = esc, false
	r.mu.Unlock()
	if err != nil {
		return err
	}
	r.escalated <- esc.Answer
	return nil
}

// escalation is the task r became, if it did.
func (r *round) escalation() *Escalation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.esc
}
