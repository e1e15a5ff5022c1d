package loop_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/loop"
)

// This file adapts a *runtime.Session to the loop through the runtime's
// public API, with models from a map: the loop's tests drive it as a
// host-supplied runtime.Runner. The runtime's own adapter and built-in
// Runner (runtime/runner.go) take models from the spec's model blocks.

// team holds what every agent of a registry runs on.
type team struct {
	models       map[string]model.Model // by agent; missing: no model
	labels       map[string]string      // the spec's name of each agent's model
	instructions map[string]string      // by agent
	opts         loop.Options           // for sub-agent runs
}

// Run is runtime.Runner: agent__<name> and spawn_agents run the child
// session (already at depth+1, max_depth enforced by the runtime) to an
// answer. The child's usage reaches the parent run through ctx.
//
// A child without a model of its own runs on the MCP host's model when the
// call came from a host (serve puts its session in ctx) that samples with
// tools; otherwise the run fails with loop.StatusNoModel, which says so.
func (tm *team) Run(ctx context.Context, child *runtime.Session, prompt string) (string, error) {
	a := tm.agent(child)
	defer a.Close()
	if tm.models[child.Agent()] == nil {
		if ss := hostFrom(ctx); model.CanSample(ss) {
			a.host = model.NewSampling(ss, model.SamplingConfig{Label: "host"})
		}
	}
	res, err := loop.Run(ctx, a, prompt, tm.opts)
	if err != nil {
		return "", err
	}
	return res.Answer, nil
}

// sessionAgent adapts a session to the loop.
type sessionAgent struct {
	s       *runtime.Session
	tm      *team
	host    model.Model // the host's model, for an agent without one
	version atomic.Uint64
	stop    func()
}

func (tm *team) agent(s *runtime.Session) *sessionAgent {
	a := &sessionAgent{s: s, tm: tm}
	// Every change of Tools() (tool_load, a step, Switch, a server's
	// list_changed) is notified: the version moves, and the loop converts
	// the surface again on its next turn.
	a.stop = s.Subscribe(func() { a.version.Add(1) })
	return a
}

func (a *sessionAgent) Close() { a.stop() }

func (a *sessionAgent) Name() string { return a.s.Agent() }

func (a *sessionAgent) Model() (model.Model, string) {
	name := a.s.Agent()
	if m := a.tm.models[name]; m != nil {
		return m, a.tm.labels[name]
	}
	if a.host != nil {
		return a.host, "host"
	}
	return nil, ""
}

// hostKey carries the MCP session of the host whose call is running; the
// runtime root would export it for serve (runtime.WithHost).
type hostKey struct{}

func withHost(ctx context.Context, ss *mcp.ServerSession) context.Context {
	return context.WithValue(ctx, hostKey{}, ss)
}

func hostFrom(ctx context.Context) *mcp.ServerSession {
	ss, _ := ctx.Value(hostKey{}).(*mcp.ServerSession)
	return ss
}

func (a *sessionAgent) Instructions() string {
	parts := a.s.Instructions()
	if in := a.tm.instructions[a.s.Agent()]; in != "" {
		parts = append([]string{in}, parts...)
	}
	return strings.Join(parts, "\n\n")
}

func (a *sessionAgent) SurfaceVersion() uint64 { return a.version.Load() }

func (a *sessionAgent) Tools() []model.Tool {
	infos := a.s.Tools()
	out := make([]model.Tool, len(infos))
	for i, t := range infos {
		out[i] = model.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	return out
}

// Call goes through Session.Call, which switches the session on an
// accepted handoff before it returns (as the loop requires).
func (a *sessionAgent) Call(ctx context.Context, name string, args json.RawMessage) loop.ToolOutcome {
	r := a.s.Call(ctx, name, args)
	if !r.OK {
		return loop.ToolOutcome{Text: r.Error, IsError: true}
	}
	if name == decl.ToolHandoff {
		var h struct {
			To       string `json:"handoff_to"`
			Switched bool   `json:"switched"`
		}
		if err := json.Unmarshal([]byte(r.Result), &h); err != nil || !h.Switched {
			return loop.ToolOutcome{Text: "handoff: the session did not switch: " + r.Result, IsError: true}
		}
		return loop.ToolOutcome{Text: r.Result, HandoffTo: h.To}
	}
	return loop.ToolOutcome{Text: r.Result}
}
