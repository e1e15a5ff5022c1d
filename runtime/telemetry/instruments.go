package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"

	itel "github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// scope is the instrumentation scope of everything recorded here.
const scope = "github.com/toolgen-dev/toolgen/runtime"

// Call statuses, as tool.call events say them (any other string works).
const (
	StatusOK      = itel.StatusOK
	StatusFailed  = itel.StatusFailed
	StatusBlocked = itel.StatusBlocked
)

// Instruments record what the call pipeline does. A nil *Instruments
// records nothing; every method is then a nil check.
//
// The SDK gives back the same instrument for the same name, so several
// sessions may each call New on one provider: their series add up.
type Instruments struct {
	tracer trace.Tracer // nil: no spans

	calls     metric.Int64Counter
	duration  metric.Float64Histogram
	inFlight  metric.Int64UpDownCounter
	output    metric.Int64Counter
	queueWait metric.Float64Histogram
	upstream  metric.Float64Histogram
	health    metric.Int64Gauge
	spill     metric.Int64Counter
	budget    metric.Int64Gauge
	budgetMax metric.Int64Gauge

	tools   sync.Map // toolKey → *toolSets
	queues  sync.Map // queue name → metric.MeasurementOption
	callers callerNames
}

// Latency buckets in seconds: tool calls run from microseconds (Go tools)
// to a minute (the default tool timeout).
var latencyBuckets = []float64{0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// New makes the instruments on a host's providers: the OpenTelemetry
// half of the runtime's recorder (itel.Recorder), registered at init. With
// both nil it returns nil: telemetry off. A nil tracer provider means
// metrics only.
func New(mp metric.MeterProvider, tp trace.TracerProvider) *Instruments {
	if mp == nil && tp == nil {
		return nil
	}
	in := &Instruments{}
	if tp != nil {
		in.tracer = tp.Tracer(scope)
	}
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	m := mp.Meter(scope)
	// Instrument errors are only for invalid names or units, which these
	// are not; the SDK then still returns a working instrument.
	in.calls, _ = m.Int64Counter("toolgen.tool.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls by tool, kind, server and status (ok, failed, blocked)."))
	in.duration = latency(m, "toolgen.tool.call.duration", "Tool call latency, from lookup to result, by tool and status.")
	in.inFlight, _ = m.Int64UpDownCounter("toolgen.tool.calls.in_flight", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls running now, by tool."))
	in.output, _ = m.Int64Counter("toolgen.tool.output", metric.WithUnit("By"),
		metric.WithDescription("Bytes of tool results returned, by tool (a spilled result counts as its handle)."))
	in.queueWait = latency(m, "toolgen.queue.wait.duration", "Time calls waited for a queue slot, by queue.")
	in.upstream = latency(m, "toolgen.upstream.call.duration", "Latency of tools/call on upstream MCP servers, by server and status.")
	in.health, _ = m.Int64Gauge("toolgen.server.health",
		metric.WithDescription("1 for the server's current health colour (green, yellow, red), 0 for the others."))
	in.spill, _ = m.Int64Counter("toolgen.spill", metric.WithUnit("By"),
		metric.WithDescription("Bytes of tool output spilled to disk (over response_max_bytes)."))
	in.budget, _ = m.Int64Gauge("toolgen.context_budget.used", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens of tool output the agent context has added, by agent."))
	in.budgetMax, _ = m.Int64Gauge("toolgen.context_budget.limit", metric.WithUnit("{token}"),
		metric.WithDescription("The agent's context budget (context_budget), by agent."))
	return in
}

// latency is a histogram of durations: in seconds, in latencyBuckets.
func latency(m metric.Meter, name, description string) metric.Float64Histogram {
	h, _ := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(description),
		metric.WithExplicitBucketBoundaries(latencyBuckets...))
	return h
}

type toolKey struct{ tool, kind, server string }

// toolSets are one tool's attribute sets, built on its first call so that
// later calls allocate none.
type toolSets struct {
	tool      metric.MeasurementOption // {tool}
	ok        metric.MeasurementOption // {tool, kind, server, status="ok"}
	failed    metric.MeasurementOption
	other     sync.Map // status → metric.MeasurementOption
	callers   sync.Map // caller label → *callerSets
	spanName  string
	spanAttrs trace.SpanStartEventOption
	base      []attribute.KeyValue
}

func (in *Instruments) toolSets(tool, kind, server string) *toolSets {
	k := toolKey{tool, kind, server}
	if ts, ok := in.tools.Load(k); ok {
		return ts.(*toolSets)
	}
	base := []attribute.KeyValue{attribute.String("tool", tool), attribute.String("kind", kind), attribute.String("server", server)}
	ts := &toolSets{
		tool:     metric.WithAttributeSet(attribute.NewSet(base[0])),
		spanName: "execute_tool " + tool,
		spanAttrs: trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", tool),
			attribute.String("toolgen.tool.kind", kind),
			attribute.String("toolgen.server", server)),
		base: base,
	}
	ts.ok = ts.withStatus(StatusOK)
	ts.failed = ts.withStatus(StatusFailed)
	v, _ := in.tools.LoadOrStore(k, ts)
	return v.(*toolSets)
}

func (ts *toolSets) withStatus(status string) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(append(ts.base[:3:3], attribute.String("status", status))...))
}

func (ts *toolSets) status(s string) metric.MeasurementOption {
	switch s {
	case StatusOK:
		return ts.ok
	case StatusFailed:
		return ts.failed
	}
	if o, ok := ts.other.Load(s); ok {
		return o.(metric.MeasurementOption)
	}
	o, _ := ts.other.LoadOrStore(s, ts.withStatus(s))
	return o.(metric.MeasurementOption)
}

// Call is one tool call being recorded (the runtime's itel.Call); End it
// once. The zero Call (from nil Instruments) does nothing.
type Call = itel.Call

type call struct {
	in     *Instruments
	ts     *toolSets
	ctx    context.Context
	span   trace.Span // nil without a tracer
	caller string     // its label value; "": SetCaller was not called
}

// StartCall begins recording a tool call: in flight, and a span
// "execute_tool TOOL" when tracing (its context is returned, so that the
// upstream call's span is its child). kind is the tool kind (mcp, go,
// builtin …); server is "" for tools no server provides. Call it after
// the tool is found; a blocked call is Blocked.
func (in *Instruments) StartCall(ctx context.Context, tool, kind, server string) (context.Context, Call) {
	if in == nil {
		return ctx, Call{}
	}
	return in.startCall(ctx, tool, kind, server)
}

func (in *Instruments) startCall(ctx context.Context, tool, kind, server string) (context.Context, Call) {
	ts := in.toolSets(tool, kind, server)
	c := &call{in: in, ts: ts}
	if in.tracer != nil {
		ctx, c.span = in.tracer.Start(ctx, ts.spanName, trace.WithSpanKind(trace.SpanKindInternal), ts.spanAttrs)
	}
	c.ctx = ctx
	in.inFlight.Add(ctx, 1, ts.tool)
	return ctx, itel.NewCall(c)
}

// End records the call's outcome (itel.Call.End says what is passed).
func (c *call) End(latency time.Duration, status string, resultBytes int, errText string) {
	in, ctx := c.in, c.ctx
	opt := c.ts.status(status)
	if c.caller != "" {
		in.calls.Add(ctx, 1, c.ts.withCaller(c.caller, status))
	} else {
		in.calls.Add(ctx, 1, opt)
	}
	in.duration.Record(ctx, latency.Seconds(), opt)
	in.inFlight.Add(ctx, -1, c.ts.tool)
	if resultBytes > 0 {
		in.output.Add(ctx, int64(resultBytes), c.ts.tool)
	}
	if c.span != nil {
		c.span.SetAttributes(attribute.String("toolgen.status", status))
		if errText != "" {
			c.span.SetStatus(codes.Error, errText)
		}
		c.span.End()
	}
}

// Blocked records a call refused before it started, under status
// "blocked", no span. known says whether the name is a tool at all (one
// the agent may not call, or must load first): an unknown name counts
// under tool "", so that a model inventing names cannot add series.
func (in *Instruments) Blocked(ctx context.Context, tool string, known bool) {
	if in == nil {
		return
	}
	if !known {
		tool = ""
	}
	in.calls.Add(ctx, 1, in.toolSets(tool, "", "").status(StatusBlocked))
}

// Upstream is one tools/call to an MCP server being recorded.
type Upstream = itel.Upstream

type upstream struct {
	in     *Instruments
	ctx    context.Context
	span   trace.Span
	server string
	start  time.Time
}

// StartUpstream begins recording a tools/call to server (its own tool
// name): a client span "tools/call TOOL" under the tool call's span, as
// the MCP semantic conventions name it. Inject its context into the
// request with InjectMeta.
func (in *Instruments) StartUpstream(ctx context.Context, server, tool string) (context.Context, Upstream) {
	if in == nil {
		return ctx, Upstream{}
	}
	return in.startUpstream(ctx, server, tool)
}

func (in *Instruments) startUpstream(ctx context.Context, server, tool string) (context.Context, Upstream) {
	u := &upstream{in: in, server: server, start: time.Now()}
	if in.tracer != nil {
		ctx, u.span = in.tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(
				attribute.String("mcp.method.name", "tools/call"),
				attribute.String("gen_ai.operation.name", "execute_tool"),
				attribute.String("gen_ai.tool.name", tool),
				attribute.String("toolgen.server", server)))
	}
	u.ctx = ctx
	return ctx, itel.NewUpstream(u)
}

// End records the upstream call (itel.Upstream.End says what is passed).
func (u *upstream) End(errText string, toolError bool) {
	status := StatusOK
	if errText != "" || toolError {
		status = StatusFailed
	}
	u.in.upstream.Record(u.ctx, time.Since(u.start).Seconds(),
		metric.WithAttributes(attribute.String("server", u.server), attribute.String("status", status)))
	if u.span != nil {
		switch {
		case errText != "":
			u.span.SetStatus(codes.Error, errText)
		case toolError:
			u.span.SetAttributes(attribute.String("error.type", "tool_error"))
			u.span.SetStatus(codes.Error, "the tool returned an error result")
		}
		u.span.End()
	}
}

// QueueWait records how long a call waited for a slot of queue.
func (in *Instruments) QueueWait(ctx context.Context, queue string, d time.Duration) {
	if in == nil {
		return
	}
	o, ok := in.queues.Load(queue)
	if !ok {
		o, _ = in.queues.LoadOrStore(queue, metric.WithAttributeSet(attribute.NewSet(attribute.String("queue", queue))))
	}
	in.queueWait.Record(ctx, d.Seconds(), o.(metric.MeasurementOption))
}

var colours = [...]string{"green", "yellow", "red"}

// ServerHealth records a server's colour: 1 on its series, 0 on the two
// others (the Prometheus way to expose a state: one series per value).
func (in *Instruments) ServerHealth(server, health string) {
	if in == nil {
		return
	}
	ctx := context.Background()
	for _, c := range colours {
		var v int64
		if c == health {
			v = 1
		}
		in.health.Record(ctx, v, metric.WithAttributes(attribute.String("server", server), attribute.String("health", c)))
	}
}

// Spilled records an output written to disk for being too large.
func (in *Instruments) Spilled(ctx context.Context, bytes int) {
	if in == nil {
		return
	}
	in.spill.Add(ctx, int64(bytes))
}

// BudgetUsed records an agent context's context-budget use (tokens) and
// its limit (0: none).
func (in *Instruments) BudgetUsed(agent string, used, limit int64) {
	if in == nil {
		return
	}
	ctx := context.Background()
	a := metric.WithAttributes(attribute.String("agent", agent))
	in.budget.Record(ctx, used, a)
	if limit > 0 {
		in.budgetMax.Record(ctx, limit, a)
	}
}

// SetCaller puts the caller's name on the call's span, and on the calls
// counter as a bounded label (callerNames).
func (c *call) SetCaller(id string) {
	c.caller = c.in.callers.label(id)
	if c.span != nil {
		c.span.SetAttributes(attribute.String("toolgen.caller", id))
	}
}
