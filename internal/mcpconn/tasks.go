package mcpconn

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An upstream server's tasks (the Tasks extension, SEP-2663), for agents
// that pass them through to their hosts: a tools/call that declares the
// extension, whose CreateTaskResult comes back as the server sent it, and
// the server's tasks/get, tasks/update and tasks/cancel.
//
// go-sdk v1.8 knows no tasks: it decodes a tools/call answer into a
// CallToolResult, which has no taskId. So the connection under go-sdk
// (taskConn) keeps the raw answer of the calls marked as task calls.

// TasksExtension is the Tasks extension's identifier in capabilities.
const TasksExtension = "io.modelcontextprotocol/tasks"

// taskMark is the _meta key that marks a task call on its way to the
// connection, which takes it out before the request is written.
const taskMark = "toolgen.dev/task-call"

type taskParams struct {
	mcp.ParamsBase
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// rawResult is a result kept as the server sent it.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *rawResult) UnmarshalJSON(b []byte) error {
	r.raw = append(json.RawMessage(nil), b...)
	return nil
}

// taskCalls readies a client and its transport for task calls; nil
// until runtime/tasks links it (LinkTasks): an agent that passes no
// tasks through carries none of this, and its servers take no task
// calls (ServesTasks false).
var taskCalls func(c *mcp.Client, t mcp.Transport) (mcp.Transport, *taskAnswers)

// LinkTasks lets connections made from now on take task calls;
// runtime/tasks calls it from its init.
func LinkTasks() {
	taskCalls = func(c *mcp.Client, t mcp.Transport) (mcp.Transport, *taskAnswers) {
		registerTaskMethods(c)
		return watchTasks(t)
	}
}

// registerTaskMethods lets a client send the extension's methods.
func registerTaskMethods(c *mcp.Client) {
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if err := mcp.AddSendingCustomMethod[*taskParams, *rawResult](c, m); err != nil {
			panic(err) // only a name go-sdk made standard can fail: a bug to see at once
		}
	}
}

// ServesTasks reports whether the server takes task calls: it declared
// the extension, on a revision with per-request _meta (2026-07-28 on),
// where a request declares the extension itself.
func (c *Conn) ServesTasks() bool {
	caps := c.Capabilities()
	if l := c.s.live.Load(); caps == nil || l == nil || l.tasks == nil || c.ProtocolVersion() < "2026-07-28" {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// CallAsTask runs tools/call with the Tasks extension declared and returns
// the server's answer as it sent it: a CreateTaskResult (resultType
// "task") or, from a server that chose to answer at once, the tool's
// result.
func (c *Conn) CallAsTask(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	s := c.s
	l := s.live.Load()
	if l == nil {
		return nil, fmt.Errorf("server %q is unavailable: %v", s.cfg.Name, s.downErr())
	}
	if !c.ServesTasks() || l.tasks == nil {
		return nil, fmt.Errorf("server %q does not take tasks", s.cfg.Name)
	}
	if len(args) > 0 && !isObject(args) {
		return nil, fmt.Errorf("server %q: tool %q: arguments must be a JSON object", s.cfg.Name, name)
	}
	mark := rand.Text()
	params := &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{
		taskMark:                      mark,
		mcp.MetaKeyClientCapabilities: withTasks(),
	}}
	if len(args) == 0 {
		params.Arguments = json.RawMessage("{}")
	}
	l.inflight.Add(1)
	defer l.inflight.Add(-1)
	_, err := l.cs.CallTool(ctx, params)
	raw := l.tasks.take(mark)
	if err != nil {
		return nil, fmt.Errorf("server %q: tool %q: %s", s.cfg.Name, name, s.redact(err.Error()))
	}
	if raw == nil {
		return nil, fmt.Errorf("server %q: tool %q: the answer was not seen", s.cfg.Name, name)
	}
	return raw, nil
}

// SendTask sends tasks/get, tasks/update or tasks/cancel (params: taskId
// and, for tasks/update, inputResponses) and returns the server's result
// as it sent it. A JSON-RPC error of the server is returned as it came.
func (c *Conn) SendTask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "tasks/get", "tasks/update", "tasks/cancel":
	default:
		return nil, fmt.Errorf("%q is no method of the tasks extension", method)
	}
	cs, err := c.session()
	if err != nil {
		return nil, err
	}
	var p taskParams
	if err := json.Unmarshal(params, &p); err != nil || p.TaskID == "" {
		return nil, fmt.Errorf("%s: params need a taskId (%v)", method, err)
	}
	p.Meta = mcp.Meta{mcp.MetaKeyClientCapabilities: withTasks()} // and the connection's own _meta
	res, err := mcp.CallCustomMethod[*taskParams, *rawResult](ctx, cs, method, &p)
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, je
		}
		return nil, fmt.Errorf("server %q: %s: %s", c.s.cfg.Name, method, c.s.redact(err.Error()))
	}
	return res.raw, nil
}

// taskAnswers are the raw answers of the marked task calls of one
// connection, by mark.
type taskAnswers struct {
	mu    sync.Mutex
	marks map[jsonrpc.ID]string
	got   map[string]json.RawMessage
}

func (a *taskAnswers) take(mark string) json.RawMessage {
	a.mu.Lock()
	defer a.mu.Unlock()
	raw := a.got[mark]
	delete(a.got, mark)
	for id, m := range a.marks { // a call that got no answer
		if m == mark {
			delete(a.marks, id)
		}
	}
	return raw
}

// watchTasks puts a taskConn over t's connections where that hides
// nothing from go-sdk: its own HTTP transports' connections have methods
// it asks for unexported (session state), which a wrapper cannot pass on.
// Streamable HTTP is watched at its HTTP client instead (tasks_http.go);
// HTTP+SSE servers (no 2026-07-28 there) take no task calls.
func watchTasks(t mcp.Transport) (mcp.Transport, *taskAnswers) {
	switch t := t.(type) {
	case *mcp.StreamableClientTransport:
		return watchHTTPTasks(t)
	case *mcp.SSEClientTransport:
		return t, nil
	}
	a := &taskAnswers{}
	return &taskTransport{base: t, ans: a}, a
}

// taskTransport puts a taskConn over its base's connections.
type taskTransport struct {
	base mcp.Transport
	ans  *taskAnswers
}

func (t *taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConn{Connection: c, ans: t.ans}, nil
}

// taskConn unmarks task calls on their way out and keeps their answers
// on the way in.
type taskConn struct {
	mcp.Connection
	ans *taskAnswers
}

// mark notes the request id of a task call.
func (a *taskAnswers) mark(id jsonrpc.ID, mark string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.marks == nil {
		a.marks, a.got = map[jsonrpc.ID]string{}, map[string]json.RawMessage{}
	}
	a.marks[id] = mark
}

// got1 keeps the answer of a task call by its request id.
func (a *taskAnswers) got1(id jsonrpc.ID, result json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if mark, ok := a.marks[id]; ok {
		delete(a.marks, id)
		a.got[mark] = result
	}
}

func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" && bytes.Contains(req.Params, []byte(taskMark)) {
		if mark, params, ok := unmark(req.Params); ok {
			c.ans.mark(req.ID, mark)
			out := *req
			out.Params = params
			msg = &out
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil {
		c.ans.got1(resp.ID, resp.Result)
	}
	return msg, err
}

// unmark takes the mark out of a task call's params.
func unmark(params json.RawMessage) (mark string, out json.RawMessage, ok bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return "", nil, false
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil || json.Unmarshal(meta[taskMark], &mark) != nil || mark == "" {
		return "", nil, false
	}
	delete(meta, taskMark)
	p["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(p)
	return mark, out, err == nil
}

// withTasks is a request's client capabilities that declare the extension.
func withTasks() map[string]any {
	return map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}
}

// DecodeResult reads a tools/call result as the server sent it (a task's
// result collected later, or an answer at once to a task call); raw that
// is not JSON is an error (decodeResult expects valid JSON).
func DecodeResult(raw json.RawMessage) (Result, error) {
	if !json.Valid(raw) {
		return Result{}, errors.New("a tool result that is not JSON")
	}
	return decodeResult(raw)
}
