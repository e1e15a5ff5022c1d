// Package tasks serves the MCP Tasks extension (SEP-2663,
// io.modelcontextprotocol/tasks): a long tools/call runs as a task that
// the host polls (tasks/get), answers (tasks/update), cancels
// (tasks/cancel) and collects (the result inlined in tasks/get).
//
// What runs as a task: sub-agents (agent__<name>), spawn_agents, and tools
// the spec declares with task = "optional" or "required" (_meta
// toolgen.dev/task). A host that declares the extension (at initialize or
// in a request's _meta) gets a task for such a call; one that does not
// gets the plain result, or -32021 for a tool that requires a task.
//
// Task state lives on a Board over runtime/store: the process's memory
// by default, the replicas' shared store (serve --store) when there is
// one, so a task created through one replica is polled, cancelled and
// collected through any.
//
// Generated code imports this package, for its init, only when the spec
// has something that runs as a task; it registers the extension with
// runtime/serve.
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// ExtensionID is the Tasks extension's identifier in capabilities.
const ExtensionID = "io.modelcontextprotocol/tasks"

// MetaKey is the tool _meta key that declares a tool runs as a task:
// "optional" or "required" (hcl: task = "…").
const MetaKey = "toolgen.dev/task"

// Method names of the extension.
const (
	MethodGet    = "tasks/get"
	MethodUpdate = "tasks/update"
	MethodCancel = "tasks/cancel"
)

// How long a task is kept after it is created, and how often a host is
// asked to poll.
const (
	DefaultTTL  = time.Hour
	DefaultPoll = time.Second
)

func init() {
	serve.RegisterExtension(&extension{boards: map[store.Store]*Board{}})
	runtime.LinkTaskCalls() // upstream servers' tasks pass through (upstream.go)
	mcpconn.LinkTasks()
}

type extension struct {
	mu     sync.Mutex
	boards map[store.Store]*Board
	local  map[string]*running // tasks this process runs, by id
}

// memory is the board of sessions without a shared store: one per
// process, so every session of it sees the same tasks.
var memory = store.NewMemory()

// sharer is a session that says which store the replicas share.
type sharer interface{ SharedStore() store.Store }

func (e *extension) board(sess serve.Session) *Board {
	st := store.Store(memory)
	if s, ok := sess.(sharer); ok && s.SharedStore() != nil {
		st = s.SharedStore()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.boards[st]
	if b == nil {
		b = NewBoard(st, 0)
		e.boards[st] = b
	}
	return b
}

// Options declares the extension for every session: its tasks/* methods
// answer the tasks of any session of the process (or of the replicas).
func (e *extension) Options(_ serve.Session, opts *mcp.ServerOptions) bool {
	if opts.Capabilities == nil {
		opts.Capabilities = &mcp.ServerCapabilities{}
	}
	opts.Capabilities.AddExtension(ExtensionID, map[string]any{})
	return true
}

// TaskParams are the parameters of tasks/get and tasks/cancel.
type TaskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// UpdateParams are tasks/update's: the host's answers to the task's
// input requests, by key.
type UpdateParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// Ack is the empty result of tasks/update and tasks/cancel.
type Ack struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	raw        json.RawMessage
}

// MarshalJSON writes an upstream server's answer as it came, or the ack.
func (a *Ack) MarshalJSON() ([]byte, error) {
	if a.raw != nil {
		return a.raw, nil
	}
	type plain Ack
	return json.Marshal((*plain)(a))
}

// Task is a task on the wire: CreateTaskResult (resultType "task") and
// tasks/get's DetailedTask (resultType "complete", with result, error or
// inputRequests as its status has them).
type Task struct {
	mcp.ResultBase
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         Status                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage,omitempty"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          int64                      `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          *Error                     `json:"error,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
	raw            json.RawMessage
}

// MarshalJSON writes an upstream server's task as it came (with the
// agent's task id), or the task.
func (t *Task) MarshalJSON() ([]byte, error) {
	if t.raw != nil {
		return t.raw, nil
	}
	type plain Task
	return json.Marshal((*plain)(t))
}

func wire(r *Record, resultType string) *Task {
	return &Task{ResultType: resultType, TaskID: r.ID, Status: r.Status, StatusMessage: r.Message,
		CreatedAt: r.Created.Format(time.RFC3339Nano), LastUpdatedAt: r.Updated.Format(time.RFC3339Nano),
		TTLMs: r.TTL, PollIntervalMs: r.Poll}
}

type requestKey struct{}

func (e *extension) Install(sess serve.Session, srv *mcp.Server) {
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case MethodGet, MethodUpdate, MethodCancel:
				if !declared(req) {
					return nil, missingCapability(method + " needs the " + ExtensionID + " extension, which this request does not declare")
				}
				if err := checkName(req); err != nil {
					return nil, err
				}
				ctx = context.WithValue(ctx, requestKey{}, req)
			}
			return next(ctx, method, req)
		}
	})
	must(mcp.AddReceivingCustomMethod(srv, MethodGet, func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*Task, error) {
		if p == nil || p.TaskID == "" {
			return nil, invalidParams("tasks/get needs a taskId")
		}
		b := e.board(sess)
		r, err := b.Get(ctx, p.TaskID, callerOf(ctx))
		if err != nil {
			return nil, storeError(p.TaskID, err)
		}
		if r.Route != nil {
			raw, err := forward(ctx, upstreamOf(sess), r, MethodGet, &TaskParams{TaskID: p.TaskID})
			if err == nil {
				raw, err = e.collect(ctx, sess, r, raw)
			}
			if err != nil {
				return nil, upstreamError(r, err)
			}
			return &Task{raw: raw}, nil
		}
		return detailed(ctx, b, r)
	}))
	must(mcp.AddReceivingCustomMethod(srv, MethodUpdate, func(ctx context.Context, _ *mcp.ServerSession, p *UpdateParams) (*Ack, error) {
		if p == nil || p.TaskID == "" {
			return nil, invalidParams("tasks/update needs a taskId")
		}
		b := e.board(sess)
		if r, err := b.Get(ctx, p.TaskID, callerOf(ctx)); err == nil && r.Route != nil {
			raw, err := forward(ctx, upstreamOf(sess), r, MethodUpdate, &UpdateParams{TaskID: p.TaskID, InputResponses: p.InputResponses})
			if err != nil {
				return nil, upstreamError(r, err)
			}
			return &Ack{raw: raw}, nil
		}
		if err := b.Answer(ctx, p.TaskID, callerOf(ctx), p.InputResponses); err != nil {
			return nil, storeError(p.TaskID, err)
		}
		e.wake(p.TaskID)
		return &Ack{ResultType: "complete"}, nil
	}))
	must(mcp.AddReceivingCustomMethod(srv, MethodCancel, func(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*Ack, error) {
		if p == nil || p.TaskID == "" {
			return nil, invalidParams("tasks/cancel needs a taskId")
		}
		b := e.board(sess)
		if r, err := b.Get(ctx, p.TaskID, callerOf(ctx)); err == nil && r.Route != nil {
			raw, err := forward(ctx, upstreamOf(sess), r, MethodCancel, &TaskParams{TaskID: p.TaskID})
			if err != nil {
				return nil, upstreamError(r, err)
			}
			return &Ack{raw: raw}, nil
		}
		if err := b.Cancel(ctx, p.TaskID, callerOf(ctx)); err != nil {
			return nil, storeError(p.TaskID, err)
		}
		e.wake(p.TaskID)
		return &Ack{ResultType: "complete"}, nil
	}))
}

// detailed is tasks/get's answer for a task of the board: its result,
// error or input requests as its status has them.
func detailed(ctx context.Context, b *Board, r *Record) (*Task, error) {
	t := wire(r, "complete")
	var err error
	switch r.Status {
	case Completed:
		if t.Result, err = b.Result(ctx, r.ID); err != nil {
			return nil, storeError(r.ID, err)
		}
	case Failed:
		t.Error = r.Error
	case InputRequired:
		t.InputRequests = r.Asks
	}
	return t, nil
}

// wake has the run of a task this process runs look at the board now.
func (e *extension) wake(id string) {
	e.mu.Lock()
	t := e.local[id]
	e.mu.Unlock()
	if t != nil {
		t.wake()
	}
}

// Support is how a tool runs as a task: "" (never), "optional",
// "required" or "after_input" (escalate.go).
func Support(t *runtime.ToolInfo) string {
	if t == nil {
		return ""
	}
	if v, ok := t.Meta[MetaKey].(string); ok && (v == "optional" || v == "required" || v == AfterInput) {
		return v
	}
	if t.Kind == decl.KindAgent && t.Name != decl.ToolListAgents {
		return "optional" // sub-agents and spawn_agents: the long calls
	}
	return ""
}

// TakeCall runs a task-supporting tool's call as a task for a host that
// declared the extension; refuses a task-requiring tool to one that did
// not.
func (e *extension) TakeCall(ctx context.Context, sess serve.Session, call *serve.Call) (mcp.Result, bool, error) {
	if res, taken, err := e.passThrough(ctx, sess, call); taken {
		return res, true, err
	}
	support := Support(call.Tool)
	if support == "" {
		return nil, false, nil
	}
	if !declared(call.Request) {
		if support == "required" {
			return nil, true, missingCapability(fmt.Sprintf("tool %q runs only as a task: declare the %s extension", call.Tool.Name, ExtensionID))
		}
		return nil, false, nil
	}
	if support == AfterInput {
		if res, taken, err := e.takeAfterInput(ctx, sess, call); taken {
			return res, true, err
		}
		if call.Request.Params.RequestState != "" {
			return nil, false, nil // a later round of its call
		}
	}
	b := e.board(sess)
	rec, err := b.Create(ctx, callerOf(context.WithValue(ctx, requestKey{}, mcp.Request(call.Request))), DefaultTTL, DefaultPoll)
	if err != nil {
		return nil, true, storeError("", err)
	}
	caps := call.Request.ClientCapabilities()
	t := start(b, rec, caps, call.Run, call.Hold, slog.Default())
	e.track(rec.ID, t)
	return wire(rec, "task"), true, nil
}

// track keeps a task this process runs findable by id until it ends.
func (e *extension) track(id string, t *running) {
	e.mu.Lock()
	if e.local == nil {
		e.local = map[string]*running{}
	}
	e.local[id] = t
	e.mu.Unlock()
	go func() {
		<-t.ended
		e.mu.Lock()
		delete(e.local, id)
		e.mu.Unlock()
	}()
}

// declared reports whether req's host declared the extension: in the
// request's _meta (2026-07-28, per request) or at initialize.
func declared(req mcp.Request) bool {
	if p := req.GetParams(); p != nil {
		if m := p.GetMeta(); m != nil {
			if caps, ok := m[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
				exts, _ := caps["extensions"].(map[string]any)
				_, ok := exts[ExtensionID]
				return ok
			}
		}
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.Capabilities != nil {
			_, ok := ip.Capabilities.Extensions[ExtensionID]
			return ok
		}
	}
	return false
}

// checkName refuses a request whose Mcp-Name header names another task
// than its body (SEP-2243): an intermediary routed it by that name.
func checkName(req mcp.Request) error {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil
	}
	name := extra.Header.Get("Mcp-Name")
	if name == "" {
		return nil
	}
	var id string
	switch p := req.GetParams().(type) {
	case *TaskParams:
		if p != nil {
			id = p.TaskID
		}
	case *UpdateParams:
		if p != nil {
			id = p.TaskID
		}
	}
	if name != id {
		return &jsonrpc.Error{Code: codeHeaderMismatch, Message: fmt.Sprintf("header Mcp-Name %q does not match params.taskId %q", name, id)}
	}
	return nil
}

// callerOf is the authenticated user of the request in ctx, if any: a
// task is theirs alone.
func callerOf(ctx context.Context) string {
	req, _ := ctx.Value(requestKey{}).(mcp.Request)
	if req == nil {
		return ""
	}
	if x := req.GetExtra(); x != nil && x.TokenInfo != nil {
		return x.TokenInfo.UserID
	}
	return ""
}

func missingCapability(msg string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionID: map[string]any{}}}})
	return &jsonrpc.Error{Code: codeMissingCapability, Message: msg, Data: data}
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: codeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// storeError is the protocol error for a board error: an unknown task is
// invalid params; a store that did not answer is an internal error that
// names it.
func storeError(id string, err error) error {
	if errors.Is(err, ErrUnknown) || errors.Is(err, store.ErrNotFound) {
		return invalidParams("no task %q here (unknown, expired, or not yours)", id)
	}
	return &jsonrpc.Error{Code: codeInternal, Message: err.Error()}
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
