// Package loop is the agent loop: it drives one conversation between an
// agent's model and its tools until the model answers.
//
//	res, err := loop.Run(ctx, agent, "Summarise notes.md", loop.Options{})
//
// A turn asks the model (system prompt: the agent's instructions; tools:
// its current surface), runs every tool call of the answer through the
// agent (in parallel, bounded) and appends the results; errors go back as
// error results the model can read, so a blocked tool does not end the run.
// The run ends when the model answers without tool calls or calls
// agent__final_report, and fails on max_turns, a model error or
// cancellation (an *Error).
//
// The tool surface is converted for the model once per change: the agent
// reports a version, and the Toolset is kept until it changes.
//
// A handoff (router__handoff-to) switches the agent under the loop: after
// a turn whose calls changed the agent's Name, the conversation goes on
// with the new agent's model, instructions and tools, with the handoff's
// message added.
//
// Usage flows up: a run started inside a tool call of another run (a
// sub-agent, reached through the context) adds its tokens to that run's.
package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// Agent is what the loop drives: the runtime's session seen from the loop.
// The runtime root adapts *runtime.Session to it. Name, Model,
// Instructions and the surface may change between turns (a handoff, a
// tool load); Call is called from several goroutines at once.
type Agent interface {
	// Name is the current agent.
	Name() string
	// Model is the current agent's model and its label for events; nil when
	// it has none (the run then fails with StatusNoModel).
	Model() (m model.Model, label string)
	// Instructions is the system prompt: the agent's instructions plus the
	// instructions its MCP servers sent.
	Instructions() string
	// SurfaceVersion changes whenever Tools would list something else. The
	// loop reads it before Tools, so a change in between is seen next turn.
	SurfaceVersion() uint64
	// Tools is the current surface: what the model may call.
	Tools() []model.Tool
	// Call runs one tool call through the session's pipeline (policy,
	// queues, timeouts, budget, spill). It must not panic and must return
	// promptly once ctx is done.
	Call(ctx context.Context, name string, args json.RawMessage) ToolOutcome
}

// ToolOutcome is one call's result as the model will see it.
type ToolOutcome struct {
	Text    string
	IsError bool
	// HandoffTo names the agent a router__handoff-to call switched the
	// session to, so that the loop passes that call's message on. The loop
	// notices the switch itself by Name changing after the turn, so the
	// switch must be done when Call returns.
	HandoffTo string
}

// ToolFinalReport is the runtime's tool whose accepted call ends the run.
const ToolFinalReport = "agent__final_report"

// Options bound a run. The zero value is usable.
type Options struct {
	// MaxTurns bounds the model calls of the run; default DefaultMaxTurns.
	// The calls the last turn asked for still run, so Result.Messages stays
	// a conversation the model accepts.
	MaxTurns int
	// Parallel bounds the tool calls of one turn running at once; default 8.
	Parallel int
	// MaxToolCalls bounds the calls one answer may ask for; the rest get an
	// error result. Default 64.
	MaxToolCalls int
	// Stream asks the model for streamed answers.
	Stream bool
	// History is a conversation to continue (Result.Messages of an earlier
	// run); the prompt, when not empty, is added to it as the user's.
	History []model.Message
	// Logger receives the events; nil: discarded.
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultMaxTurns     = 20
	DefaultParallel     = 8
	DefaultMaxToolCalls = 64
)

func (o Options) withDefaults() Options {
	if o.MaxTurns <= 0 {
		o.MaxTurns = DefaultMaxTurns
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.MaxToolCalls <= 0 {
		o.MaxToolCalls = DefaultMaxToolCalls
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Run drives agent from prompt (and opts.History) to an answer. The error
// is nil when Status is completed or partial, else an *Error saying why;
// the Result is always returned, with what the run did.
func Run(ctx context.Context, agent Agent, prompt string, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	r := &run{a: agent, opts: opts, log: opts.Logger, start: time.Now()}
	r.ctx = context.WithValue(ctx, tallyKey{}, &r.children)
	r.msgs = make([]model.Message, len(opts.History), len(opts.History)+1+min(2*opts.MaxTurns, 64))
	copy(r.msgs, opts.History)
	if prompt != "" {
		r.msgs = append(r.msgs, model.NewUserMessage(prompt))
	}
	res := r.loop()
	res.Messages = r.msgs
	res.Usage.Add(r.children.load())
	tallyFrom(ctx).add(res.Usage)
	r.logRun(res)
	if res.err != nil {
		return res, res.err
	}
	return res, nil
}

// run is one Run's state.
type run struct {
	a    Agent
	opts Options
	log  *slog.Logger
	ctx  context.Context // carries children, for sub-agent runs to report to

	start    time.Time
	msgs     []model.Message
	children tally // usage of the sub-agent runs started by this run's calls

	// The current agent, read at the start and after a handoff.
	name   string
	model  model.Model
	label  string
	system string

	// The surface as the model gets it, kept until its version changes.
	tools   *model.Toolset
	version uint64
	fresh   bool // tools and version are valid
}

func (r *run) loop() *Result {
	res := &Result{}
	if len(r.msgs) == 0 {
		return r.fail(res, StatusFailed, "nothing to answer: no prompt and no conversation", nil)
	}
	if fail := r.enter(res); fail != nil {
		return fail
	}
	for {
		if err := r.ctx.Err(); err != nil {
			return r.cancelled(res)
		}
		if err := r.surface(); err != nil {
			return r.fail(res, StatusFailed, err.Error(), nil)
		}
		res.Turns++
		turn := res.Turns
		start := time.Now()
		resp, err := r.model.Generate(r.ctx, &model.Request{System: r.system, Messages: r.msgs, Tools: r.tools, Stream: r.opts.Stream})
		r.logModel(turn, time.Since(start), resp, err)
		if err != nil {
			if r.ctx.Err() != nil {
				return r.cancelled(res)
			}
			return r.fail(res, StatusModelError, err.Error(), err)
		}
		res.Usage.Add(resp.Usage)
		r.msgs = append(r.msgs, resp.Message)
		if len(resp.ToolCalls) == 0 {
			r.logTurn(turn, 0, resp.Usage, model.Usage{}, time.Since(start))
			if resp.StopReason == model.StopRefusal {
				return r.fail(res, StatusFailed, "the model refused: "+resp.Text, nil)
			}
			res.Answer, res.Status, res.Agent = resp.Text, StatusCompleted, r.name
			return res
		}

		before := r.children.load()
		outcomes := r.calls(resp.ToolCalls)
		var report *finalReport
		handoffMsg := ""
		for i, c := range resp.ToolCalls {
			o := &outcomes[i]
			text := o.Text
			if o.IsError {
				// OpenAI has no error flag: the text must say it.
				text = "error: " + text
			}
			r.msgs = append(r.msgs, model.NewToolResult(c.ID, text, o.IsError))
			res.ToolCalls = append(res.ToolCalls, ToolCall{Name: c.Name, Agent: r.name, Turn: turn, OK: !o.IsError, Latency: o.latency})
			switch {
			case o.IsError:
			case c.Name == ToolFinalReport && report == nil:
				report = parseFinalReport(c.Args)
			case o.HandoffTo != "":
				handoffMsg = handoffMessage(c.Args)
			}
		}
		sub := minus(r.children.load(), before)
		r.logTurn(turn, len(resp.ToolCalls), resp.Usage, sub, time.Since(start))

		if r.ctx.Err() != nil {
			return r.cancelled(res)
		}
		if report != nil {
			return r.finish(res, report)
		}
		if name := r.a.Name(); name != r.name {
			if fail := r.handoff(res, turn, name, handoffMsg); fail != nil {
				return fail
			}
		}
		if turn >= r.opts.MaxTurns {
			return r.fail(res, StatusMaxTurns, fmt.Sprintf("no answer after %d turns (max_turns); raise max_turns or give a narrower task", turn), nil)
		}
	}
}

// enter reads the current agent: its name, model and instructions.
func (r *run) enter(res *Result) *Result {
	r.name = r.a.Name()
	r.model, r.label = r.a.Model()
	r.fresh = false
	if r.model == nil {
		return r.fail(res, StatusNoModel, "it has no model: give it one (model = model.NAME, or a default in defaults { model = … }), or run it under an MCP host that supports sampling with tools", nil)
	}
	return nil
}

// surface keeps the Toolset while the agent's surface version holds and
// converts the tools again when it changed.
func (r *run) surface() error {
	v := r.a.SurfaceVersion()
	if r.fresh && v == r.version {
		return nil
	}
	ts, err := r.toolset(r.a.Tools())
	if err != nil {
		return err
	}
	r.tools, r.version, r.fresh = ts, v, true
	// Servers that connected since may have sent instructions.
	r.system = r.a.Instructions()
	return nil
}

// handoff moves the run onto the agent the session switched to: its model,
// instructions and tools, with the conversation so far and the message.
func (r *run) handoff(res *Result, turn int, to, message string) *Result {
	from := r.name
	if fail := r.enter(res); fail != nil {
		return fail
	}
	text := fmt.Sprintf("Agent %q handed this conversation off to you (agent %q).", from, to)
	if message != "" {
		text += " Its message: " + message
	}
	r.msgs = append(r.msgs, model.NewUserMessage(text))
	if r.log.Enabled(r.ctx, slog.LevelInfo) {
		r.log.LogAttrs(r.ctx, slog.LevelInfo, EventHandoff, slog.String("from", from), slog.String("to", to), slog.Int("turn", turn))
	}
	return nil
}

// finish ends the run on an accepted agent__final_report.
func (r *run) finish(res *Result, rep *finalReport) *Result {
	res.Answer, res.Agent = rep.answer(), r.name
	switch rep.Status {
	case "partial":
		res.Status = StatusPartial
	case "failure":
		return r.fail(res, StatusFailed, "it reported failure: "+res.Answer, nil)
	default:
		res.Status = StatusCompleted
	}
	return res
}

func (r *run) cancelled(res *Result) *Result {
	err := context.Cause(r.ctx)
	return r.fail(res, StatusCancelled, fmt.Sprintf("cancelled after %d turns: %v", res.Turns, err), err)
}

func (r *run) fail(res *Result, status Status, msg string, cause error) *Result {
	res.Status, res.Agent = status, r.name
	if res.Agent == "" {
		res.Agent = r.a.Name()
	}
	res.err = &Error{Status: status, Agent: res.Agent, Turns: res.Turns, Msg: msg, Err: cause}
	res.Error = res.err.Error()
	return res
}

// finalReport is the part of agent__final_report's arguments the loop reads.
type finalReport struct {
	Status      string          `json:"status"`
	Content     string          `json:"content"`
	ContentJSON json.RawMessage `json:"content_json"`
}

func parseFinalReport(args json.RawMessage) *finalReport {
	rep := &finalReport{}
	_ = json.Unmarshal(args, rep) // the runtime accepted the call: they decode
	return rep
}

// answer is the report's content, or its content_json as text.
func (f *finalReport) answer() string {
	if f.Content == "" && len(f.ContentJSON) > 0 && string(f.ContentJSON) != "null" {
		return string(f.ContentJSON)
	}
	return f.Content
}

// handoffMessage is the message of router__handoff-to's arguments.
func handoffMessage(args json.RawMessage) string {
	var a struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(args, &a)
	return a.Message
}
