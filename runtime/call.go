package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unsafe"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/clock"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// entry is one callable tool of a surface, with everything the pipeline
// needs precomputed so that a call does no lookups besides the name.
type entry struct {
	info     ToolInfo
	server   string
	original string              // the server's own tool name
	goFn     decl.GoFunc         // KindGo: called directly
	args     *pipeline.ArgSchema // the input schema check; nil for the runtime's own tools
	output   *pipeline.ArgSchema // the output schema check of an MCP tool; nil without one
	run      provider
	rich     richProvider // answers with more than text (a server's whole result)
	via      sessionRun   // a pool tool's: runs on the calling session's context (providers.go)
	q        *pipeline.Queue
	timeout  time.Duration
	cacheTTL time.Duration
	noCap    bool // output_read: already paged, never spilled again
	noBudget bool // agent__batch: its calls were counted one by one
	// structured: a declared tool with an output schema, whose JSON
	// object results are structuredContent as well as text
	structured bool
	richGo     bool  // a Go tool that answers with runtime.Rich
	linked     bool  // the call's context ends with the agent context
	upstream   bool  // via is upstreamRun: the call may run in two halves (forward.go)
	timedOut   error // "timeout after …", made once per entry
}

// finish precomputes what calls would otherwise build each time.
func (e *entry) finish() *entry {
	if e.timeout > 0 {
		e.timedOut = fmt.Errorf("timeout after %s", e.timeout)
	}
	return e
}

// provider runs one tool, closed over what it needs (an upstream getter,
// a builtin, a REST tool, a runtime tool's component). args are valid JSON.
type provider func(ctx context.Context, args json.RawMessage) (string, error)

// richProvider runs a tool whose answer may be more than text (an MCP
// server's), closed over what it needs like provider.
type richProvider func(ctx context.Context, args json.RawMessage) (pipeline.Output, error)

var emptyArgs = json.RawMessage(`{}`)

// mono is the stopwatch of calls' latencies (runtime/internal/clock: the
// CPU's counter where it is invariant, about a third of time.Since's cost
// on a kvm-clock machine).
func mono() time.Duration { return clock.Now() }

// since is the latency of a call that started at start; never negative,
// though two readings on two CPUs may be a few ticks apart.
func since(start time.Duration) time.Duration { return max(mono()-start, 0) }

// call is the pipeline: lookup → allowed? → arguments valid? → cache →
// queue → timeout → provider → secrets scrubbed → size cap → context
// budget → event. An upstream MCP tool's call may instead run in two
// halves around the server's answer, through the same steps
// (forward.go).
//
// It fills r in place: a Result is too large for registers, and returned
// by value it would be copied at every step back to Session.Call.
func (st *agentState) call(r *Result, ctx context.Context, name string, args json.RawMessage) {
	start := mono()
	sf := st.surf.Load()
	e := sf.entry(name)
	if e == nil {
		*r = st.blocked(ctx, name, start)
		return
	}
	var c callRun
	if err := st.open(&c, ctx, sf, e, args, start); err != nil {
		st.closeTo(r, &c, pipeline.Output{}, err)
		return
	}
	out, err := st.invokeOutput(c.ctx, e, args)
	st.closeTo(r, &c, out, err)
}

// callRun is a call between its first steps (open) and its last (close).
type callRun struct {
	ctx     context.Context
	e       *entry
	sf      *surface
	span    telemetry.Call
	charsIn int
	start   time.Duration
}

// open runs the steps before the tool's own: the span, the rate limit
// (an error refuses the call) and the debug event.
// It fills c in place: returned by value, the run is too large for
// registers, which cost Session.Call a tenth of its time.
func (st *agentState) open(c *callRun, ctx context.Context, sf *surface, e *entry, args json.RawMessage, start time.Duration) error {
	var span telemetry.Call
	if tel := st.s.tel; tel != nil {
		ctx, span = tel.StartCall(ctx, e.info.Name, string(e.info.Kind), e.server)
		if span.Traced() {
			span.SetCaller(CallerID(ctx))
		}
	}
	*c = callRun{ctx: ctx, e: e, sf: sf, span: span, charsIn: len(args), start: start}
	if st.s.opts.RateLimit.on() {
		if err := st.rateLimited(ctx); err != nil {
			return err
		}
	}
	if st.log.Enabled(ctx, slog.LevelDebug) {
		st.logStart(ctx, e, len(args))
	}
	return nil
}

// logStart is the debug event of a call's start, apart from open so that
// its attributes do not widen open's frame on every call.
func (st *agentState) logStart(ctx context.Context, e *entry, charsIn int) {
	st.log.LogAttrs(ctx, slog.LevelDebug, EventToolStart, slog.String("tool", e.info.Name), slog.String("server", e.server),
		slog.String("agent", st.agent.Name), slog.Int("chars_in", charsIn))
}

// close runs the steps after the tool's own on its answer: output
// schema, secret scrubbing, size cap, context budget, then the Result and
// its event (finish).
func (st *agentState) close(c *callRun, out pipeline.Output, err error) Result {
	var r Result
	st.closeTo(&r, c, out, err)
	return r
}

// closeTo is close filling r in place.
func (st *agentState) closeTo(r *Result, c *callRun, out pipeline.Output, err error) {
	ctx, e, tel := c.ctx, c.e, st.s.tel
	if out.Task() { // its result is checked when collected (taskcall.go)
		st.finish(r, c, out, err)
		return
	}
	switch {
	case e.richGo:
		out, err = pipeline.DecodeRich(out, err)
	case e.structured && err == nil && out.Rich == nil:
		out = pipeline.StructuredOutput(out.Text)
	}
	if e.output != nil && err == nil && !(out.Rich != nil && out.Rich.IsError) {
		err = st.checkOutput(e, out)
	}
	scrub := st.s.scrub
	if scrub != nil && (err == nil || out.Rich != nil) {
		// before the output is spilled or counted: the spill file that
		// output_read pages through holds only scrubbed text, and every
		// block of a rich result is scrubbed (pipeline.Scrub).
		out = pipeline.Scrub(scrub, out)
	}
	if err == nil && !e.noCap && st.maxBytes > 0 && out.Size() > st.maxBytes {
		// a large image or resource spills (or is cut) too: its JSON is in
		// the text
		if c.sf.entry(decl.ToolOutputRead) != nil {
			n := out.Size()
			var text string
			if text, err = st.spill.Store(ctx, out.Text); err == nil {
				tel.Spilled(ctx, n)
			}
			out = pipeline.TextOutput(text)
		} else {
			out = pipeline.TextOutput(pipeline.Truncate(out.Text, st.maxBytes))
		}
	}
	if err == nil && st.budget.Limit > 0 && !e.noBudget {
		var used int64
		used, err = st.chargeBudget(ctx, out.Size())
		tel.BudgetUsed(st.agent.Name, used, st.budget.Limit)
	}
	st.finish(r, c, out, err)
}

// finish makes the Result of a call in r, ends its span and logs its event.
// It takes the run whole: its fields one by one were more arguments than
// registers.
func (st *agentState) finish(r *Result, c *callRun, out pipeline.Output, err error) {
	ctx, e, scrub := c.ctx, c.e, st.s.scrub
	*r = Result{Kind: e.info.Kind, Namespace: e.info.Namespace, Latency: since(c.start)}
	if err != nil {
		r.Error = pipeline.ErrorText(scrub, err.Error())
		r.Internal = errors.As(err, new(*panicError))
		if out.Rich != nil && out.Rich.IsError {
			r.Rich = out.Rich // the tool's own failure, with all its blocks
		}
	} else {
		r.OK, r.Result, r.Rich = true, out.Text, out.Rich
	}
	status := telemetry.StatusOK
	level := slog.LevelInfo // the seeds' request/response log: one line per call
	if err != nil {
		status, level = telemetry.StatusFailed, slog.LevelWarn
	}
	c.span.End(r.Latency, status, len(r.Result), r.Error)
	if st.log.Enabled(ctx, level) {
		st.logCall(ctx, level, e, c.charsIn, r)
	}
}

func (st *agentState) logCall(ctx context.Context, level slog.Level, e *entry, charsIn int, r *Result) {
	status := "ok"
	if !r.OK {
		status = "failed"
	}
	attrs := []slog.Attr{
		slog.String("tool", e.info.Name), slog.String("server", e.server), slog.String("agent", st.agent.Name),
		slog.Float64("latency_ms", ms(r.Latency)), slog.Int("chars_in", charsIn), slog.Int("chars_out", len(r.Result)),
		slog.String("status", status), slog.String("kind", string(r.Kind)), slog.String("namespace", r.Namespace),
		slog.String("caller", CallerID(ctx)),
	}
	if !r.OK {
		attrs = append(attrs, slog.String("error", r.Error))
	}
	st.log.LogAttrs(ctx, level, EventToolCall, attrs...)
}

// invoke runs the middle of the pipeline (cache, queue, timeout,
// provider); meta and batch tools reuse it for the calls they make, and
// read the answer as text.
func (st *agentState) invoke(ctx context.Context, e *entry, args json.RawMessage) (string, error) {
	out, err := st.invokeOutput(ctx, e, args)
	return out.Text, err
}

// invokeOutput is invoke with the whole answer. A tool's own failure (an
// MCP result with isError) is an error whose text is the result's, and
// the Output still carries the result.
func (st *agentState) invokeOutput(ctx context.Context, e *entry, args json.RawMessage) (pipeline.Output, error) {
	args, err := st.checkArgs(e, args)
	if err != nil {
		return pipeline.Output{}, err
	}
	if e.goFn != nil && e.q == nil && e.timeout <= 0 {
		out, err := callGo(ctx, e.goFn, args) // the in-process fast path
		return pipeline.TextOutput(out), err
	}
	var key string
	if e.cacheTTL > 0 {
		key = e.info.Name + "\x00" + string(args)
		if out, ok := st.cache.Get(key); ok {
			return out, nil
		}
	}
	if e.q != nil {
		var waitStart time.Duration
		if st.s.tel != nil {
			waitStart = mono()
		}
		if err := e.q.Acquire(ctx, st.stopWait); err != nil {
			return pipeline.Output{}, fmt.Errorf("waiting for queue %q: %w", e.q.Name, err)
		}
		defer e.q.Release()
		if st.s.tel != nil {
			st.s.tel.QueueWait(ctx, e.q.Name, mono()-waitStart)
		}
	}
	ctx, b := st.bound(ctx, e)
	defer b.release()
	var out pipeline.Output
	switch {
	case e.goFn != nil && e.timeout > 0:
		out.Text, err = callGoBounded(ctx, e.goFn, args)
	case e.goFn != nil:
		out.Text, err = callGo(ctx, e.goFn, args)
	case e.via != nil:
		out, err = runViaSafely(ctx, st, e, args)
	case e.rich != nil:
		out, err = runRichSafely(ctx, e, args)
	default:
		out.Text, err = runSafely(ctx, e, args)
	}
	err = settled(ctx, err)
	if err == nil && e.cacheTTL > 0 && !out.Task() {
		st.cache.Put(key, out, e.cacheTTL)
	}
	return out, err
}

// checkArgs is the arguments step: none are {}, and they must pass the
// tool's input schema (or, without one, be JSON).
func (st *agentState) checkArgs(e *entry, args json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 {
		args = emptyArgs
	}
	if e.args != nil {
		err, unusable := e.args.Check(e.info.Name, args)
		if unusable != nil {
			st.schemaInvalid(e, unusable)
		}
		if err != nil {
			return args, err
		}
	}
	if e.goFn == nil && !json.Valid(args) {
		return args, fmt.Errorf("invalid JSON arguments for tool %q", e.info.Name)
	}
	return args, nil
}

// bounds are what bound set up for a call, released when it ends.
type bounds struct {
	unlink   context.CancelFunc // the link to the agent context
	stopLink func() bool
	untime   context.CancelFunc // the timeout
}

// bound links the call's context to the agent context where the tool
// needs it, and puts it under the tool's timeout.
func (st *agentState) bound(ctx context.Context, e *entry) (context.Context, bounds) {
	var b bounds
	if e.linked && ctx.Value(linkedToKey{}) != st.ctx { // linkContext's ends with st.ctx already
		// a call's context that is not linkContext's (or another agent's)
		ctx, b.unlink = context.WithCancel(ctx)
		b.stopLink = context.AfterFunc(st.ctx, b.unlink)
	}
	if e.timeout > 0 {
		ctx, b.untime = withTimeout(ctx, e.timeout, e.timedOut) // the shared deadline wheel: no timer per call
	}
	return ctx, b
}

func (b *bounds) release() {
	if b.untime != nil {
		b.untime()
	}
	if b.unlink != nil {
		b.unlink()
		b.stopLink()
	}
}

// settled is a tool's error as the call reports it: the cause of its
// context's end (a timeout, a teardown) when that ended it.
func settled(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// checkOutput fails a result that breaks its tool's output schema (a
// tool.output_invalid event too): a host or model would otherwise take
// it for the shape the tool promised.
func (st *agentState) checkOutput(e *entry, out pipeline.Output) error {
	var structured json.RawMessage
	if out.Rich != nil {
		structured = out.Rich.Structured
	}
	err, _ := e.output.CheckOutput(e.info.Name, structured)
	if err != nil {
		event.Emit(st.log, slog.LevelWarn, event.ToolOutputInvalid, slog.String("tool", e.info.Name),
			slog.String("server", e.server), slog.String("agent", st.agent.Name), slog.String("error", err.Error()))
	}
	return err
}

// schemaInvalid reports, once per pool tool, an input schema that cannot
// be used: its arguments are only checked to be an object.
func (st *agentState) schemaInvalid(e *entry, err error) {
	event.Emit(st.log, slog.LevelWarn, EventToolSchemaInvalid, slog.String("tool", e.info.Name),
		slog.String("server", e.server), slog.String("agent", st.agent.Name),
		slog.String("error", pipeline.ErrorText(st.s.scrub, err.Error())),
		slog.String("reason", "input schema unusable; arguments are only checked to be an object"))
}

// callGo calls a Go function tool, turning a panic into an error. The
// result bytes become the result string without a copy: generated wrappers
// return a fresh buffer from json.Marshal that nothing else holds.
func callGo(ctx context.Context, fn decl.GoFunc, args json.RawMessage) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", panicked(r)
		}
	}()
	b, err := fn(ctx, args)
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", nil
	}
	// A tool whose Result is a string answers with text, not a JSON string.
	if b[0] == '"' {
		var text string
		if json.Unmarshal(b, &text) == nil {
			return text, nil
		}
	}
	return unsafe.String(&b[0], len(b)), nil
}

// callGoBounded runs a Go tool under a deadline it may ignore: the call
// returns at the deadline and the goroutine finishes on its own.
func callGoBounded(ctx context.Context, fn decl.GoFunc, args json.RawMessage) (string, error) {
	type res struct {
		out string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		out, err := callGo(ctx, fn, args)
		ch <- res{out, err}
	}()
	select {
	case r := <-ch:
		return r.out, r.err
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

func runSafely(ctx context.Context, e *entry, args json.RawMessage) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", panicked(r)
		}
	}()
	return e.run(ctx, args)
}

func runRichSafely(ctx context.Context, e *entry, args json.RawMessage) (out pipeline.Output, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = pipeline.Output{}, panicked(r)
		}
	}()
	return e.rich(ctx, args)
}

func runViaSafely(ctx context.Context, st *agentState, e *entry, args json.RawMessage) (out pipeline.Output, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = pipeline.Output{}, panicked(r)
		}
	}()
	return e.via(st, ctx, args)
}

// blocked answers a call to a name the agent cannot call: renamed, not
// allowed, not loaded, or not found with the nearest names.
func (st *agentState) blocked(ctx context.Context, name string, start time.Duration) Result {
	if len(name) > maxToolName {
		// no tool has such a name: say so without echoing it, and without
		// an edit distance over megabytes
		msg, _ := st.whyBlocked(name)
		event.Emit(st.log, slog.LevelWarn, EventToolBlocked, slog.String("tool", strings.ToValidUTF8(name[:maxToolName], "")+"…"),
			slog.String("agent", st.agent.Name), slog.String("reason", "not_found"))
		st.s.tel.Blocked(ctx, "", false)
		return Result{Error: msg, Latency: since(start)}
	}
	msg, reason := st.whyBlocked(name)
	event.Emit(st.log, slog.LevelWarn, EventToolBlocked, slog.String("tool", name), slog.String("agent", st.agent.Name), slog.String("reason", reason),
		slog.String("caller", CallerID(ctx)))
	st.s.tel.Blocked(ctx, name, reason != "not_found")
	return Result{Error: pipeline.ErrorText(st.s.scrub, msg), Latency: since(start)}
}

// whyBlocked says why the agent cannot call name, and the tool.blocked
// reason: the one answer for a direct call
// and for mcp_call_tool.
func (st *agentState) whyBlocked(name string) (msg, reason string) {
	if len(name) > maxToolName {
		return fmt.Sprintf("tool not found: a name of %d bytes is longer than any tool's name", len(name)), "not_found"
	}
	snap := st.s.pool.snap.Load()
	agent := st.agent.Name
	sf := st.surf.Load()
	loadable := sf.loadable[name] || sf.loadable[st.res().aliases[name]]
	switch to, renamed := snap.renamed[name]; {
	case renamed:
		msg = fmt.Sprintf("tool %q not found: it was renamed to %s", name, to)
		reason = "renamed"
	case loadable && st.agent.Discovery:
		msg = fmt.Sprintf("tool %q not allowed for agent %q: it is not loaded; call %s first", name, agent, decl.ToolLoad)
		reason = "not_loaded"
	case st.unavailable(name, &msg):
		reason = "server_unavailable"
	case snap.byName[name] != nil || decl.IsReservedToolName(name) || st.res().aliases[name] != "":
		msg = fmt.Sprintf("tool %q not allowed for agent %q", name, agent)
		reason = "not_allowed"
	default:
		msg = fmt.Sprintf("tool %q not found", name)
		if near := didyoumean.Nearest(name, st.knownNames(), 3); len(near) > 0 {
			msg += "; did you mean " + quoteList(near) + "?"
		} else {
			msg += "."
		}
		if st.agent.Discovery {
			msg += " Use " + decl.ToolFind + " to search the tools you can load."
		} else {
			msg += " Use " + decl.ToolFind + " or the tools list to see the tools you can call."
		}
		reason = "not_found"
	}
	return msg, reason
}

// maxToolName bounds the names a blocked call is answered about: far
// beyond the portable 64 characters, short of anything costly to echo.
const maxToolName = 256

// knownNames are the names an agent may be told about: what it can call
// and what it can load.
func (st *agentState) knownNames() []string {
	sf := st.surf.Load()
	seen := map[string]bool{}
	sf.names(func(n string) { seen[n] = true })
	for n := range sf.loadable {
		seen[n] = true
	}
	return sortedKeys(seen)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// unavailable reports whether name would be a tool of one of the agent's
// red servers (<server><separator>…), and sets msg to say so: a call to a
// tool of a server that did not start, or went down, is told that instead
// of "not found".
func (st *agentState) unavailable(name string, msg *string) bool {
	for _, srv := range st.s.Servers() {
		if srv.Health == HealthRed && strings.HasPrefix(name, srv.Name+st.s.reg.Sep()) {
			*msg = fmt.Sprintf("tool %q is not available: server %q is unavailable: %s", name, srv.Name, srv.Error)
			return true
		}
	}
	return false
}
