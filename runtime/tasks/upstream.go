package tasks

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// UpstreamSession is a serve.Session whose upstream servers' tasks pass
// through (runtime.Session is one): a host's task call of a server's
// tool becomes a task on that server, and the host's tasks/get,
// tasks/update and tasks/cancel of it go there.
//
// The call itself goes through the session's call pipeline, marked with
// runtime.WithTaskCall: the same checks as a plain call, then the server
// gets it as a task. The result's half of the pipeline runs when the
// host collects it (TaskResult).
//
// The agent's own id of such a task routes it: the board keeps the
// server and the server's id under it (Record.Route), so any replica
// that reaches the same server answers for it.
type UpstreamSession interface {
	// TakesTasks reports whether tool (as the session lists it) is an
	// upstream server's that takes task calls.
	TakesTasks(ctx context.Context, tool string) bool
	// SendTask sends tasks/get, tasks/update or tasks/cancel to server
	// and returns its result as it came.
	SendTask(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error)
	// TaskResult is what the host collects of a completed task of tool:
	// the server's result (raw) through the output steps of a plain
	// call; charge is true for the task's first collection.
	TaskResult(ctx context.Context, tool string, raw json.RawMessage, charge bool) runtime.Result
}

var _ UpstreamSession = (*runtime.Session)(nil)

// Route is where a passed-through task runs: the upstream server and the
// task's id there.
type Route struct {
	Server string `json:"server"`
	ID     string `json:"id"`
	// Tool is the tool called, as the agent lists it: its result is
	// checked like that tool's when collected.
	Tool string `json:"tool,omitempty"`
}

// MaxUpstreamTTL bounds how long the board keeps the route of an
// upstream's task, whatever ttlMs the server asked for.
const MaxUpstreamTTL = 24 * time.Hour

// created is the part of a CreateTaskResult the agent reads.
type created struct {
	ResultType     string `json:"resultType"`
	TaskID         string `json:"taskId"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs"`
}

// Adopt records an upstream server's new task of tool (its
// CreateTaskResult, raw) under an id of the agent's own, the caller's
// alone, and returns the result for the host: the server's, with the
// agent's id in taskId.
func (b *Board) Adopt(ctx context.Context, caller, server, tool string, raw json.RawMessage) (*Record, json.RawMessage, error) {
	var c created
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, nil, fmt.Errorf("server %s: unreadable task: %w", server, err)
	}
	if c.ResultType != "task" || c.TaskID == "" {
		return nil, nil, fmt.Errorf("server %s: a task call's result is no task (resultType %q, taskId %q)", server, c.ResultType, c.TaskID)
	}
	ttl := time.Duration(c.TTLMs) * time.Millisecond
	switch {
	case ttl <= 0:
		ttl = DefaultTTL
	case ttl > MaxUpstreamTTL:
		ttl = MaxUpstreamTTL
	}
	now := b.now().UTC().Truncate(time.Millisecond)
	r := &Record{ID: rand.Text(), Status: Working, Created: now, Updated: now, TTL: ttl.Milliseconds(), Poll: c.PollIntervalMs,
		Caller: caller, Route: &Route{Server: server, ID: c.TaskID, Tool: tool}}
	v, _ := json.Marshal(r)
	ok, err := b.st.SetNew(ctx, recordKey(r.ID), v, ttl)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("task id %s taken", r.ID)
	}
	out, err := withTaskID(raw, r.ID)
	if err != nil {
		return nil, nil, err
	}
	return r, out, nil
}

// errNoUpstream: a routed task, but this session reaches no upstream
// servers (a replica serving another spec).
var errNoUpstream = errors.New("this agent reaches no upstream server for the task")

// forward sends a host's tasks/* request of a routed task to its server:
// params as the host sent them, with the server's task id, and the
// server's result with the agent's id back in it.
func forward(ctx context.Context, u UpstreamSession, r *Record, method string, params any) (json.RawMessage, error) {
	if u == nil {
		return nil, errNoUpstream
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if p, err = withTaskID(p, r.Route.ID); err != nil {
		return nil, err
	}
	res, err := u.SendTask(ctx, r.Route.Server, method, p)
	if err != nil {
		return nil, err
	}
	return withTaskID(res, r.ID)
}

// withTaskID is the JSON object raw with its taskId set to id (when it
// has one, or is params that need one); every other member stays as it
// came, byte for byte. _meta is dropped from params going upstream by
// the caller's marshalling (the connection adds its own).
func withTaskID(raw json.RawMessage, id string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("task message: %w", err)
	}
	if m == nil {
		return nil, errors.New("task message: not an object")
	}
	v, _ := json.Marshal(id)
	m["taskId"] = v
	return json.Marshal(m)
}

// upstreamOf is the session's way to its upstream servers' tasks, if any.
func upstreamOf(sess any) UpstreamSession {
	u, _ := sess.(UpstreamSession)
	return u
}

// passThrough sends a host's task call of an upstream server's tool,
// when the host declared the extension and the server takes tasks,
// through the session's call pipeline to that server as a task; the host
// gets the server's task under the agent's id. A call the pipeline
// refused, or that the server answered at once, gets the plain answer.
//
// The task's creation is asked of the server within the host's request;
// what the server asks while the task runs reaches the host as the
// task's input requests (tasks/get), its answers go back by tasks/update.
func (e *extension) passThrough(ctx context.Context, sess serve.Session, call *serve.Call) (mcp.Result, bool, error) {
	u := upstreamOf(sess)
	if u == nil || call.Tool == nil || call.Tool.Kind != decl.KindMCP || !declared(call.Request) || !u.TakesTasks(ctx, call.Tool.Name) {
		return nil, false, nil
	}
	tc := &runtime.TaskCall{}
	res, err := call.Run(runtime.WithTaskCall(ctx, tc), nil)
	if err != nil || tc.Created == nil {
		return res, true, err
	}
	_, out, err := e.board(sess).Adopt(ctx, callerOf(context.WithValue(ctx, requestKey{}, mcp.Request(call.Request))), tc.Server, call.Tool.Name, tc.Created)
	if err != nil {
		return nil, true, storeError("", err)
	}
	return &passed{raw: out}, true, nil
}

// collect is tasks/get's answer for a routed task (raw, the server's):
// a completed task's inlined result as the session's output steps leave
// it (runtime.Session.TaskResult), the context budget charged at the
// first collection only, on any replica. Everything else stays as it came.
func (e *extension) collect(ctx context.Context, sess serve.Session, r *Record, raw json.RawMessage) (json.RawMessage, error) {
	u := upstreamOf(sess)
	if u == nil || r.Route.Tool == "" {
		return raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("server %s: unreadable task: %w", r.Route.Server, err)
	}
	var status Status
	_ = json.Unmarshal(m["status"], &status)
	if status != Completed || len(m["result"]) == 0 || string(m["result"]) == "null" {
		return raw, nil
	}
	first, err := e.board(sess).firstCollect(ctx, r)
	if err != nil {
		return nil, err
	}
	res, err := json.Marshal(serve.ToolResult(u.TaskResult(ctx, r.Route.Tool, m["result"], first)))
	if err != nil {
		return nil, err
	}
	m["result"] = res
	return json.Marshal(m)
}

// upstreamError is the protocol error for a routed task whose server did
// not answer: the server's own JSON-RPC error as it came, or an internal
// error that names the server.
func upstreamError(r *Record, err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return &jsonrpc.Error{Code: codeInternal, Message: fmt.Sprintf("task %s on server %s: %v", r.ID, r.Route.Server, err)}
}

// passed is a result passed through as the upstream server sent it.
type passed struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (p *passed) MarshalJSON() ([]byte, error) { return p.raw, nil }
