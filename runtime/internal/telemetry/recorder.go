// Package telemetry is what the call pipeline records through, without
// OpenTelemetry: a Recorder interface and nil-safe Instruments around it.
// The OpenTelemetry half (instruments on a host's MeterProvider and
// TracerProvider, W3C trace context in _meta, the SDK an agent binary
// runs) is runtime/telemetry, which registers itself here when linked: an
// agent pays for OpenTelemetry, API included, only when its spec asks
// (toolgen { telemetry = true }) or its main imports it.
package telemetry

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Call statuses, as tool.call events say them (any other string works).
const (
	StatusOK      = "ok"
	StatusFailed  = "failed"
	StatusBlocked = "blocked"
)

// Recorder records what the call pipeline does; runtime/telemetry's
// Instruments is the one implementation.
type Recorder interface {
	StartCall(ctx context.Context, tool, kind, server string) (context.Context, Call)
	Blocked(ctx context.Context, tool string, known bool)
	StartUpstream(ctx context.Context, server, tool string) (context.Context, Upstream)
	QueueWait(ctx context.Context, queue string, d time.Duration)
	ServerHealth(server, health string)
	Spilled(ctx context.Context, bytes int)
	BudgetUsed(agent string, used, limit int64)
}

// Call is one tool call being recorded; End it once. The zero Call does
// nothing.
type Call struct {
	e interface {
		End(time.Duration, string, int, string)
	}
}

// NewCall wraps a recorder's call.
func NewCall(e interface {
	End(time.Duration, string, int, string)
}) Call {
	return Call{e}
}

// End records the call's outcome: its latency as the pipeline measured it
// (the one figure a Result, an event and a metric report, so no clock is
// read twice for it), status (StatusOK, StatusFailed …), the bytes of the
// result, and the error text when it failed. Pass the text the caller
// gets, with secrets already scrubbed: it goes into the span.
func (c Call) End(latency time.Duration, status string, resultBytes int, errText string) {
	if c.e != nil {
		c.e.End(latency, status, resultBytes, errText)
	}
}

// Upstream is one tools/call to an MCP server being recorded.
type Upstream struct {
	e interface{ End(string, bool) }
}

// NewUpstream wraps a recorder's upstream call.
func NewUpstream(e interface{ End(string, bool) }) Upstream { return Upstream{e} }

// End records the upstream call: errText for a transport failure or
// cancellation, toolError for a result the server marked isError.
func (u Upstream) End(errText string, toolError bool) {
	if u.e != nil {
		u.e.End(errText, toolError)
	}
}

// Instruments record through a Recorder. A nil *Instruments records
// nothing; every method is then a nil check.
type Instruments struct{ r Recorder }

// Linker is what runtime/telemetry registers: its instruments on a host's
// providers (metric.MeterProvider, trace.TracerProvider, either nil), and
// the trace context's way into and out of an MCP request's _meta.
type Linker struct {
	New         func(meterProvider, tracerProvider any) (Recorder, error)
	TraceMeta   func(ctx context.Context) map[string]any
	ExtractMeta func(ctx context.Context, meta map[string]any) context.Context
}

var (
	linkMu sync.RWMutex
	linked *Linker
)

// RegisterInstruments installs runtime/telemetry's half; it calls this from init.
func RegisterInstruments(l Linker) {
	linkMu.Lock()
	defer linkMu.Unlock()
	linked = &l
}

func linker() *Linker {
	linkMu.RLock()
	defer linkMu.RUnlock()
	return linked
}

// New makes the instruments on a host's providers. With both nil it
// returns nil: telemetry off. Providers given to a binary that does not
// link runtime/telemetry are an error saying so (the session still runs,
// recording nothing).
func New(meterProvider, tracerProvider any) (*Instruments, error) {
	if meterProvider == nil && tracerProvider == nil {
		return nil, nil
	}
	l := linker()
	if l == nil {
		return nil, fmt.Errorf("SessionOptions.MeterProvider or TracerProvider is set, but %s", NotLinked)
	}
	r, err := l.New(meterProvider, tracerProvider)
	if err != nil || r == nil {
		return nil, err
	}
	return &Instruments{r: r}, nil
}

// StartCall begins recording a tool call (a span "execute_tool TOOL" when
// tracing, whose context is returned). kind is the tool kind (mcp, go,
// builtin …); server is "" for tools no server provides. Call it after
// the tool is found; a blocked call is Blocked.
func (in *Instruments) StartCall(ctx context.Context, tool, kind, server string) (context.Context, Call) {
	if in == nil { // small enough to inline: off costs a nil check
		return ctx, Call{}
	}
	return in.r.StartCall(ctx, tool, kind, server)
}

// Blocked records a call refused before it started; known says whether
// the name is a tool at all.
func (in *Instruments) Blocked(ctx context.Context, tool string, known bool) {
	if in != nil {
		in.r.Blocked(ctx, tool, known)
	}
}

// StartUpstream begins recording a tools/call to server (its own tool
// name), under the tool call's span.
func (in *Instruments) StartUpstream(ctx context.Context, server, tool string) (context.Context, Upstream) {
	if in == nil {
		return ctx, Upstream{}
	}
	return in.r.StartUpstream(ctx, server, tool)
}

// QueueWait records how long a call waited for a slot of queue.
func (in *Instruments) QueueWait(ctx context.Context, queue string, d time.Duration) {
	if in != nil {
		in.r.QueueWait(ctx, queue, d)
	}
}

// ServerHealth records a server's colour.
func (in *Instruments) ServerHealth(server, health string) {
	if in != nil {
		in.r.ServerHealth(server, health)
	}
}

// Spilled records an output written to disk for being too large.
func (in *Instruments) Spilled(ctx context.Context, bytes int) {
	if in != nil {
		in.r.Spilled(ctx, bytes)
	}
}

// BudgetUsed records an agent context's context-budget use and limit.
func (in *Instruments) BudgetUsed(agent string, used, limit int64) {
	if in != nil {
		in.r.BudgetUsed(agent, used, limit)
	}
}

// TraceMeta is the _meta of an MCP request made under ctx: the trace
// context of its span, or nil when there is none (or no telemetry linked).
func TraceMeta(ctx context.Context) map[string]any {
	if l := linker(); l != nil {
		return l.TraceMeta(ctx)
	}
	return nil
}

// ExtractMeta returns ctx carrying the trace context in an incoming MCP
// request's _meta, when telemetry is linked.
func ExtractMeta(ctx context.Context, meta map[string]any) context.Context {
	if l := linker(); l != nil && meta != nil {
		return l.ExtractMeta(ctx, meta)
	}
	return ctx
}
