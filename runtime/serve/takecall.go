package serve

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// CallTaker is an Extension that may take a tools/call over before the
// server runs it (runtime/tasks runs it as a task the host polls).
type CallTaker interface {
	// TakeCall answers call itself (taken true: res or err is the answer),
	// or leaves it to the server.
	TakeCall(ctx context.Context, sess Session, call *Call) (res mcp.Result, taken bool, err error)
}

// Call is one tools/call offered to a CallTaker.
type Call struct {
	Request *mcp.CallToolRequest
	// Tool is the called tool as tools/list shows it; nil for a name the
	// session does not list.
	Tool *runtime.ToolInfo
	// Run runs the call through the session, detached from the request:
	// what it asks of the host goes to c. A call that broke inside the
	// agent (runtime.Result.Internal) is a JSON-RPC internal error.
	Run func(ctx context.Context, c mcpconn.Caller) (*mcp.CallToolResult, error)
	// Hold keeps the session open after the request until done is called;
	// when the server closes first, it calls cancel (the run must end).
	Hold func(cancel context.CancelFunc) (done func())
	// Rounds, for a host of the stateless revision (nil for others), runs
	// the call in input-required rounds as the server would; when the call
	// says it continues as a task (runtime.ContinueAsTask), toTask makes
	// it one (escalate.go).
	Rounds func(ctx context.Context, toTask Escalate) (mcp.Result, error)
}

// CallFilter is a CallTaker that can tell from the request and the called
// tool alone which calls it leaves to the server, before a Call is built
// for it: most calls are not taken, and a Call is a tool lookup and a
// closure per call.
type CallFilter interface {
	// MayTake is false when TakeCall would leave this call of tool (nil:
	// a name the session does not list) to the server whatever else
	// holds; true when it might take it.
	MayTake(req *mcp.CallToolRequest, tool *runtime.ToolInfo) bool
}

// takeCall offers a tools/call to the extensions that take calls.
func (s *Server) takeCall(ctx context.Context, req *mcp.CallToolRequest) (mcp.Result, bool, error) {
	return s.offer(ctx, req, true)
}

// mayTake reports whether an extension might take req over (takeCall):
// the lean path of older hosts leaves such a call to go-sdk's path, which
// offers it (lean26.go offers its calls itself).
// takesCalls reports whether an extension may take a host's calls.
func (s *Server) takesCalls() bool {
	for _, e := range s.exts {
		if _, ok := e.(CallTaker); ok {
			return true
		}
	}
	return false
}

func (s *Server) mayTake(req *mcp.CallToolRequest) bool {
	_, may, _ := s.offer(nil, req, false)
	return may
}

// offer offers req to the extensions that take calls, building the Call
// only for one that may take it; !take: only says whether one may.
func (s *Server) offer(ctx context.Context, req *mcp.CallToolRequest, take bool) (mcp.Result, bool, error) {
	var call *Call
	var tool *runtime.ToolInfo
	looked := false
	for _, e := range s.exts {
		t, ok := e.(CallTaker)
		if !ok {
			continue
		}
		if !looked {
			s.syncIfDirty()
			s.mu.Lock()
			tool, looked = s.list.lookup(req.Params.Name), true
			s.mu.Unlock()
		}
		if f, ok := e.(CallFilter); ok && !f.MayTake(req, tool) {
			continue
		}
		if !take {
			return nil, true, nil
		}
		if call == nil {
			call = s.offered(req, tool)
		}
		if res, taken, err := t.TakeCall(ctx, s.sess, call); taken {
			return res, true, err
		}
	}
	return nil, false, nil
}

// offered is req as a Call of tool: a run that outlives req.
func (s *Server) offered(req *mcp.CallToolRequest, tool *runtime.ToolInfo) *Call {
	call := &Call{Request: req, Hold: s.hold, Tool: tool}
	if statelessHost(req) {
		call.Rounds = func(ctx context.Context, toTask Escalate) (mcp.Result, error) {
			return s.callEscalating(ctx, req, call, toTask)
		}
	}
	name, args := req.Params.Name, req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	who, meta := callerID(req), req.Params.Meta
	call.Run = func(ctx context.Context, c mcpconn.Caller) (*mcp.CallToolResult, error) {
		ctx = telemetry.ExtractMeta(ctx, meta)
		ctx = runtime.WithCallerID(ctx, who)
		ctx = mcpconn.WithCaller(ctx, c)
		r := s.sess.Call(ctx, name, args)
		if r.Internal {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: r.Error}
		}
		return toCallToolResult(r), nil
	}
	return call
}

// holds are the runs (tasks) that keep a server open past its requests.
type holds struct {
	mu      sync.Mutex
	cancels map[*int]context.CancelFunc
	closed  bool
	after   func() // the release that waits for the last hold
}

func (s *Server) hold(cancel context.CancelFunc) (done func()) {
	h := &s.holds
	key := new(int)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		cancel()
		return func() {}
	}
	if h.cancels == nil {
		h.cancels = map[*int]context.CancelFunc{}
	}
	h.cancels[key] = cancel
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			delete(h.cancels, key)
			var after func()
			if len(h.cancels) == 0 {
				after, h.after = h.after, nil
			}
			h.mu.Unlock()
			if after != nil {
				after()
			}
		})
	}
}

// deferRelease puts release off until the last hold ends; false: nothing
// holds the server, release now.
func (s *Server) deferRelease(release func()) bool {
	h := &s.holds
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.cancels) == 0 || h.closed {
		return false
	}
	h.after = release
	return true
}

// cancelHolds ends every hold's run: the server is closing.
func (s *Server) cancelHolds() {
	h := &s.holds
	h.mu.Lock()
	h.closed = true
	cancels := make([]context.CancelFunc, 0, len(h.cancels))
	for _, c := range h.cancels {
		cancels = append(cancels, c)
	}
	h.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}
