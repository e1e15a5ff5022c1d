package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
)

// An upstream server's tasks through a session (runtime/tasks passes them
// to its hosts). A host's task call of an upstream MCP tool is one call of
// the pipeline: lookup, allowed, rate limit, argument check, queue and
// timeout, the tool.call event and metrics all happen when the task is
// created, and the provider sends the call to the server as a task
// instead of a plain call. The result's half of the pipeline (output
// schema, secrets scrubbed, size cap, context budget) runs when the host
// collects the task (TaskResult): a gateway's policies hold for a task's
// result as for a plain call's, so the host collects what a plain call
// of the tool would have answered.

// TaskCall marks a call (WithTaskCall) to go to its upstream server as a
// task, and tells what became of it.
type TaskCall struct {
	// Created is the server's CreateTaskResult as it came; nil when the
	// call ran as a plain call (the pipeline refused it, a cached answer,
	// a server that takes no tasks or answered at once).
	Created json.RawMessage
	// Server is the server that created the task.
	Server string
}

type taskCallKey struct{}

// WithTaskCall marks the call made with ctx as a task call; tc tells
// what became of it once the call returns.
func WithTaskCall(ctx context.Context, tc *TaskCall) context.Context {
	return context.WithValue(ctx, taskCallKey{}, tc)
}

// TaskCallOf is the mark WithTaskCall put on ctx, or nil: a Session of
// another make honours it by filling it in.
func TaskCallOf(ctx context.Context) *TaskCall { return taskCallFrom(ctx) }

func taskCallFrom(ctx context.Context) *TaskCall {
	tc, _ := ctx.Value(taskCallKey{}).(*TaskCall)
	return tc
}

// taskServer is an Upstream whose server may take task calls
// (internal/mcpconn's connections; test fixtures need not be).
type taskServer interface {
	ServesTasks() bool
	CallAsTask(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)
	SendTask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

func (u *mcpUpstream) ServesTasks() bool { return u.c.ServesTasks() }

func (u *mcpUpstream) CallAsTask(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	return u.c.CallAsTask(ctx, tool, args)
}

func (u *mcpUpstream) SendTask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return u.c.SendTask(ctx, method, params)
}

// taskCalls is the provider's step of a task call; nil until
// runtime/tasks links it (LinkTaskCalls): a binary without the Tasks
// extension carries none of it, and its calls are plain calls.
var taskCalls func(ctx context.Context, up Upstream, server, tool string, args json.RawMessage) (UpstreamResult, bool, error)

// LinkTaskCalls has sessions send task calls of upstream tools to the
// servers that take tasks; runtime/tasks calls it from its init.
func LinkTaskCalls() { taskCalls = upstreamTask }

// upstreamTask is the provider's step of a task call: the call goes to
// the server as a task when ctx marks it a task call and the server
// takes tasks (created true, the mark filled), as a plain call otherwise.
// A server that answered at once gives its result, which goes on through
// the pipeline like any other.
func upstreamTask(ctx context.Context, up Upstream, server, tool string, args json.RawMessage) (res UpstreamResult, created bool, err error) {
	tc := taskCallFrom(ctx)
	ts, ok := up.(taskServer)
	if tc == nil || !ok || !ts.ServesTasks() {
		res, err = up.Call(ctx, tool, args)
		return res, false, err
	}
	raw, err := ts.CallAsTask(ctx, tool, args)
	if err != nil {
		return res, false, err
	}
	var head struct {
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return res, false, fmt.Errorf("server %q: tool %q: unreadable answer: %w", server, tool, err)
	}
	if head.ResultType == "task" {
		tc.Created, tc.Server = raw, server
		return res, true, nil
	}
	res, err = mcpconn.DecodeResult(raw)
	if err != nil {
		return res, false, fmt.Errorf("server %q: tool %q: unreadable result: %w", server, tool, err)
	}
	return res, false, nil
}

// TakesTasks reports whether tool, as the session lists it, is an
// upstream server's whose block passes tasks through (tasks = true) and
// whose connection takes task calls now (connecting to the server if it
// is not yet).
func (s *Session) TakesTasks(ctx context.Context, tool string) bool {
	st := s.st.Load()
	if st == nil || !st.enter() {
		return false
	}
	defer st.exit()
	e := st.surf.Load().entry(tool)
	if e == nil || e.info.Kind != decl.KindMCP || e.server == "" {
		return false
	}
	if srv := s.pool.servers[e.server]; srv == nil || !srv.Tasks {
		return false
	}
	up, err := st.upstream(ctx, e.server)
	if err != nil {
		return false
	}
	ts, ok := up.(taskServer)
	return ok && ts.ServesTasks()
}

// SendTask sends tasks/get, tasks/update or tasks/cancel to server and
// returns its result as it came.
func (s *Session) SendTask(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error) {
	st := s.st.Load()
	if st == nil || !st.enter() {
		return nil, errors.New("the session is closed")
	}
	defer st.exit()
	if srv := s.pool.servers[server]; srv == nil || !srv.Tasks {
		return nil, fmt.Errorf("server %q passes no tasks through in this agent's spec", server)
	}
	up, err := st.upstream(ctx, server)
	if err != nil {
		return nil, err
	}
	ts, ok := up.(taskServer)
	if !ok || !ts.ServesTasks() {
		return nil, fmt.Errorf("server %q takes no tasks (any more)", server)
	}
	return ts.SendTask(ctx, method, params)
}

// TaskResult is the result a host collects of an upstream's task of
// tool: the server's CallToolResult (raw) through the result's half of
// the pipeline, as a plain call's would go: output schema checked,
// secrets scrubbed, cut or spilled past the size cap, and, when charge
// (the first collection of the task), counted against the context
// budget.
func (s *Session) TaskResult(ctx context.Context, tool string, raw json.RawMessage, charge bool) Result {
	st := s.st.Load()
	if st == nil || !st.enter() {
		return Result{Error: "the session is closed; collect the task again"}
	}
	defer st.exit()
	start := mono()
	rr, err := mcpconn.DecodeResult(raw)
	if err != nil {
		return Result{Error: fmt.Sprintf("tool %q: the task's result is unreadable: %v", tool, err), Kind: decl.KindMCP}
	}
	out := pipeline.RichOutput(rr)
	if rr.IsError {
		err = errors.New(out.Text)
	}
	sf := st.surf.Load()
	e := sf.entry(tool)
	r := Result{Kind: decl.KindMCP}
	noCap, noBudget := false, false
	if e != nil {
		r.Namespace = e.info.Namespace
		noCap, noBudget = e.noCap, e.noBudget
		if e.output != nil && err == nil {
			err = st.checkOutput(e, out)
		}
	}
	// The steps of call (call.go) after the provider, in its order.
	scrub := st.s.scrub
	if scrub != nil && (err == nil || out.Rich != nil) {
		out = pipeline.Scrub(scrub, out)
	}
	if err == nil && !noCap && st.maxBytes > 0 && out.Size() > st.maxBytes {
		if sf.entry(decl.ToolOutputRead) != nil {
			n := out.Size()
			var text string
			if text, err = st.spill.Store(ctx, out.Text); err == nil {
				st.s.tel.Spilled(ctx, n)
			}
			out = pipeline.TextOutput(text)
		} else {
			out = pipeline.TextOutput(pipeline.Truncate(out.Text, st.maxBytes))
		}
	}
	if err == nil && charge && st.budget.Limit > 0 && !noBudget {
		var used int64
		used, err = st.chargeBudget(ctx, out.Size())
		st.s.tel.BudgetUsed(st.agent.Name, used, st.budget.Limit)
	}
	r.Latency = mono() - start
	if err != nil {
		r.Error = pipeline.ErrorText(scrub, err.Error())
		if out.Rich != nil && out.Rich.IsError {
			r.Rich = out.Rich
		}
	} else {
		r.OK, r.Result, r.Rich = true, out.Text, out.Rich
	}
	return r
}
