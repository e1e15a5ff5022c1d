package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/loop"
)

// Agents that run: Session.Run drives the session's agent with its model
// (the spec's model blocks) through the agent loop of
// runtime/internal/loop, every tool call going through Session.Call. The
// same loop is the built-in Runner: without Options.Runner, agent__<name>
// and spawn_agents run the child session to its answer. An agent without a
// model runs on the MCP host's model (sampling/createMessage with tools)
// when the call came from a host that offers it (WithHost).

// Event names of the loop.
const (
	EventAgentTurn    = event.AgentTurn    // one model call and the tool calls it asked for
	EventModelRequest = event.ModelRequest // one model call: latency, tokens
	EventAgentHandoff = event.AgentHandoff // a run moved to the agent router__handoff-to switched to
	EventAgentRun     = event.AgentRun     // a run ended: status, turns, usage
)

// RunResult is what a run did: the answer, how it ended, turns, usage
// (sub-agents included) and the tool calls. It marshals as
// {answer, status, agent, turns, usage, tool_calls, error}.
type RunResult = loop.Result

// RunOptions bound one Session.Run. The zero value is usable.
type RunOptions struct {
	// MaxTurns bounds the model calls; 0 means the agent's max_turns.
	MaxTurns int
	// Stream asks the model for streamed answers.
	Stream bool
}

// Run drives the session's agent from prompt to an answer: the model
// answers, calls tools through Call (policy, queues, timeouts, budget and
// spill all apply), and the run ends when it answers without tool calls
// or calls agent__final_report. A handoff (router__handoff-to) switches
// the session and the destination continues the conversation. The error is
// nil when the run completed (or reported partial success); the result is
// returned either way.
func (s *Session) Run(ctx context.Context, prompt string, opts RunOptions) (*RunResult, error) {
	a := s.loopAgent(ctx)
	defer a.close()
	lo := loop.Options{MaxTurns: opts.MaxTurns, Stream: opts.Stream, Logger: s.opts.Logger}
	if lo.MaxTurns <= 0 {
		lo.MaxTurns = s.maxTurns()
	}
	return loop.Run(ctx, a, prompt, lo)
}

func (s *Session) maxTurns() int {
	if st := s.st.Load(); st != nil && st.agent.MaxTurns > 0 {
		return st.agent.MaxTurns
	}
	return decl.DefaultMaxTurns
}

// WithHost returns ctx carrying the MCP session of the host whose tool
// call is running (serve sets it), so that a sub-agent without a model of
// its own can run on the host's model.
func WithHost(ctx context.Context, ss *mcp.ServerSession) context.Context {
	return context.WithValue(ctx, hostKey{}, ss)
}

type hostKey struct{}

func hostFrom(ctx context.Context) *mcp.ServerSession {
	ss, _ := ctx.Value(hostKey{}).(*mcp.ServerSession)
	return ss
}

// builtinRunner is the Runner used when Options.Runner is nil.
type builtinRunner struct{}

func (builtinRunner) Run(ctx context.Context, child *Session, prompt string) (string, error) {
	res, err := child.Run(ctx, prompt, RunOptions{})
	if err != nil {
		return "", err
	}
	return res.Answer, nil
}

// models makes the registry's models, each once, when first needed: keys
// are read through Getenv then, never earlier, and a session tree (the
// sub-agents' sessions too) shares one set, so parallel children share
// connections.
type models struct {
	reg    *Registry
	getenv func(string) (string, bool)
	mu     sync.Mutex
	made   map[string]modelOrErr
}

type modelOrErr struct {
	m   model.Model
	err error
}

func newModels(reg *Registry, getenv func(string) (string, bool)) *models {
	return &models{reg: reg, getenv: getenv, made: map[string]modelOrErr{}}
}

func (ms *models) get(name string) (model.Model, error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if m, ok := ms.made[name]; ok {
		return m.m, m.err
	}
	m, err := ms.make(name)
	ms.made[name] = modelOrErr{m, err}
	return m, err
}

func (ms *models) make(name string) (model.Model, error) {
	d := ms.reg.Model(name)
	if d == nil {
		return nil, fmt.Errorf("model %q is not declared", name)
	}
	cfg, err := model.FromDecl(d, ms.getenv)
	if err != nil {
		return nil, err
	}
	return model.New(cfg)
}

// loopAgent is the session seen from the loop. The host's model, when the
// call came from a host that samples with tools, stands in for agents
// without one.
func (s *Session) loopAgent(ctx context.Context) *sessionAgent {
	a := &sessionAgent{s: s}
	if ss := hostFrom(ctx); model.CanSample(ss) {
		a.host = model.NewSampling(ss, model.SamplingConfig{Label: "host"})
	}
	// Every change of Tools() (tool_load, a step, Switch, a server's
	// list_changed) moves the version: the loop converts the surface again
	// on its next turn, and only then.
	a.stop = s.Subscribe(func() { a.version.Add(1) })
	return a
}

type sessionAgent struct {
	s       *Session
	host    model.Model
	version atomic.Uint64
	stop    func()
}

func (a *sessionAgent) close() { a.stop() }

func (a *sessionAgent) Name() string { return a.s.Agent() }

func (a *sessionAgent) decl() *decl.Agent {
	if st := a.s.st.Load(); st != nil {
		return st.agent
	}
	return nil
}

// Model is the agent's model (its own, else defaults.model, as toolgen
// resolved it), else the host's; a model that cannot be made (a key not
// set) ends the run with that reason.
func (a *sessionAgent) Model() (model.Model, string) {
	d := a.decl()
	name := ""
	if d != nil {
		name = d.Model
	}
	if name == "" {
		name = a.s.reg.Defaults.Model
	}
	if name != "" {
		m, err := a.s.opts.models.get(name)
		if err != nil {
			return brokenModel{err}, name
		}
		return m, name
	}
	if a.host != nil {
		return a.host, "host"
	}
	return nil, ""
}

// brokenModel is a model that cannot be made; its first turn fails with why.
type brokenModel struct{ err error }

func (f brokenModel) Generate(context.Context, *model.Request) (*model.Response, error) {
	return nil, f.err
}

// Instructions are the agent's own, then its servers'.
func (a *sessionAgent) Instructions() string {
	parts := a.s.Instructions()
	if sp := a.skillsPrompt(); sp != "" {
		parts = append(parts, sp)
	}
	return strings.Join(parts, "\n\n")
}

func (a *sessionAgent) SurfaceVersion() uint64 { return a.version.Load() }

func (a *sessionAgent) Tools() []model.Tool {
	st := a.s.st.Load()
	if st == nil {
		return nil
	}
	list := st.surf.Load().tools()
	out := make([]model.Tool, len(list))
	for i, t := range list {
		out[i] = model.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	if t, ok := a.skillLoadTool(); ok {
		out = append(out, t)
	}
	return out
}

// Call goes through Session.Call, which also performs a handoff's switch.
func (a *sessionAgent) Call(ctx context.Context, name string, args json.RawMessage) loop.ToolOutcome {
	if name == decl.ToolSkillLoad {
		return a.loadSkill(ctx, args)
	}
	r := a.s.Call(ctx, name, args)
	if !r.OK {
		return loop.ToolOutcome{Text: r.Error, IsError: true}
	}
	out := loop.ToolOutcome{Text: r.Result}
	if name == decl.ToolHandoff {
		out.HandoffTo = handoffTarget(r.Result)
	}
	return out
}

// handoffResult is what router__handoff-to answers once the session switched.
type handoffResult struct {
	HandoffTo string `json:"handoff_to"`
	Message   string `json:"message,omitempty"`
	Switched  bool   `json:"switched"`
	Note      string `json:"note"`
}

func handoffTarget(result string) string {
	var h handoffResult
	if json.Unmarshal([]byte(result), &h) != nil || !h.Switched {
		return ""
	}
	return h.HandoffTo
}

// switchAfterHandoff performs the switch an accepted router__handoff-to
// asks for, after the call has left its agent context (Switch waits for
// that context's calls): the session moves to the destination, hosts are
// notified (serve sends tools/list_changed), and the result says so.
func (s *Session) switchAfterHandoff(ctx context.Context, r Result) Result {
	var h handoffResult
	if err := json.Unmarshal([]byte(r.Result), &h); err != nil || h.HandoffTo == "" {
		return Result{Kind: r.Kind, Latency: r.Latency, Error: "handoff: no destination in " + r.Result}
	}
	from := s.Agent()
	if err := s.Switch(ctx, h.HandoffTo); err != nil {
		return Result{Kind: r.Kind, Latency: r.Latency, Error: fmt.Sprintf("handoff to %q failed: %v; the conversation stays with %q", h.HandoffTo, err, from)}
	}
	h.Switched = true
	h.Note = fmt.Sprintf("The conversation is now with agent %q (it was %q): its tools replace %q's.", h.HandoffTo, from, from)
	b, _ := json.Marshal(h)
	r.Result = string(b)
	return r
}
