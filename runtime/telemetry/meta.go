package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// W3C trace context travels in an MCP request's params._meta under the
// keys traceparent and tracestate, as the OpenTelemetry MCP conventions
// propose; a server that does not know them ignores them.
var traceContext = propagation.TraceContext{}

// InjectMeta adds the trace context of ctx (the upstream call's span) to
// an MCP request's _meta and returns it; meta may be nil. With telemetry
// off (nil Instruments) or no span in ctx it returns meta untouched.
func (in *Instruments) InjectMeta(ctx context.Context, meta map[string]any) map[string]any {
	if in == nil || !trace.SpanContextFromContext(ctx).IsValid() {
		return meta
	}
	if meta == nil {
		meta = make(map[string]any, 2)
	}
	traceContext.Inject(ctx, metaCarrier(meta))
	return meta
}

// TraceMeta is the _meta of an MCP request made under ctx: the trace
// context of its span, or nil when ctx carries none (telemetry off), so
// that a request without tracing is sent as before.
func TraceMeta(ctx context.Context) map[string]any {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	meta := make(map[string]any, 2)
	traceContext.Inject(ctx, metaCarrier(meta))
	return meta
}

// ExtractMeta returns ctx carrying the trace context in an incoming MCP
// request's _meta (from a host that sends one), for the spans of serving it.
func ExtractMeta(ctx context.Context, meta map[string]any) context.Context {
	if meta == nil {
		return ctx
	}
	return traceContext.Extract(ctx, metaCarrier(meta))
}

// metaCarrier is _meta as a TextMapCarrier; non-string values are not
// trace context and are left alone.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
