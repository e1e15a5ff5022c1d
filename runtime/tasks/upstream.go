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

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// Upstream reaches the upstream MCP servers whose tasks pass through: a
// host's task call of a server's tool becomes a task on that server, and
// the host's tasks/get, tasks/update and tasks/cancel of it go there.
//
// The agent's own id of such a task routes it: the board keeps the
// server and the server's id under it (Record.Route), so any replica
// that reaches the same server answers for it.
type Upstream interface {
	// CallAsTask sends a tools/call of an upstream tool (as the session
	// lists it) with the Tasks extension declared. It returns the
	// server's CreateTaskResult as it came and the server it went to;
	// ok false when the tool's server does not take tasks (the call then
	// runs as before). A server that answered the call at once (a
	// complete result) returns that in created with ok false.
	CallAsTask(ctx context.Context, tool string, args json.RawMessage) (created json.RawMessage, server string, ok bool, err error)
	// Send sends tasks/get, tasks/update or tasks/cancel to server and
	// returns its result as it came.
	Send(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error)
}

// UpstreamSession is a serve.Session whose upstream servers' tasks pass
// through.
type UpstreamSession interface{ TaskUpstream() Upstream }

// Route is where a passed-through task runs: the upstream server and the
// task's id there.
type Route struct {
	Server string `json:"server"`
	ID     string `json:"id"`
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

// Adopt records an upstream server's new task (its CreateTaskResult,
// raw) under an id of the agent's own, the caller's alone, and returns
// the result for the host: the server's, with the agent's id in taskId.
func (b *Board) Adopt(ctx context.Context, caller, server string, raw json.RawMessage) (*Record, json.RawMessage, error) {
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
		Caller: caller, Route: &Route{Server: server, ID: c.TaskID}}
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
func forward(ctx context.Context, u Upstream, r *Record, method string, params any) (json.RawMessage, error) {
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
	res, err := u.Send(ctx, r.Route.Server, method, p)
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
func upstreamOf(sess any) Upstream {
	if s, ok := sess.(UpstreamSession); ok {
		return s.TaskUpstream()
	}
	return nil
}

// passThrough sends a host's task call of an upstream server's tool to
// that server as a task, when the host declared the extension and the
// server takes tasks; the host gets the server's task under the agent's
// id. A server that answered at once gives the host its answer as it came.
func (e *extension) passThrough(ctx context.Context, sess serve.Session, call *serve.Call) (mcp.Result, bool, error) {
	u := upstreamOf(sess)
	if u == nil || call.Tool == nil || call.Tool.Kind != decl.KindMCP || !declared(call.Request) {
		return nil, false, nil
	}
	args := call.Request.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	raw, server, ok, err := u.CallAsTask(ctx, call.Tool.Name, args)
	switch {
	case err != nil:
		return nil, true, &jsonrpc.Error{Code: codeInternal, Message: fmt.Sprintf("tool %q: %v", call.Tool.Name, err)}
	case !ok && raw != nil:
		return &passed{raw: raw}, true, nil
	case !ok:
		return nil, false, nil
	}
	_, out, err := e.board(sess).Adopt(ctx, callerOf(context.WithValue(ctx, requestKey{}, mcp.Request(call.Request))), server, raw)
	if err != nil {
		return nil, true, storeError("", err)
	}
	return &passed{raw: out}, true, nil
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
