package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// metaServer is a real MCP server over streamable HTTP whose echo tool
// records the _meta of every call it gets.
type metaServer struct {
	url  string
	mu   sync.Mutex
	seen []map[string]any
}

func newMetaServer(t *testing.T) *metaServer {
	t.Helper()
	ms := &metaServer{}
	server := mcp.NewServer(&mcp.Implementation{Name: "meta", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ms.mu.Lock()
			ms.seen = append(ms.seen, req.Params.Meta)
			ms.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echoed"}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(srv.Close)
	ms.url = srv.URL
	return ms
}

func (ms *metaServer) last() map[string]any {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.seen[len(ms.seen)-1]
}

func metaRegistry(url string) *Registry {
	return &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second, ResponseMaxBytes: 1 << 20, InitConcurrency: 1, MaxDepth: 1},
		Servers:  []decl.Server{{Name: "up", Transport: "http", Trusted: true, URL: decl.Value{{Lit: url}}}},
		Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "up"}}}},
	}
}

// With a tracer provider, a tool call is a span, the upstream tools/call
// its child, and the server gets that child's trace context in _meta
// (traceparent); the call and a blocked one are counted by status.
func TestTelemetrySpansMetaAndMetrics(t *testing.T) {
	ms := newMetaServer(t)
	h := NewHost(nil)
	t.Cleanup(func() { h.Close() })
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	s := open(t, metaRegistry(ms.url), "a", Options{Logger: (&events{}).logger(), Host: h,
		TracerProvider: tp, MeterProvider: mp})
	mustOK(t, call(t, s, "up__echo", `{}`))
	if r := call(t, s, "up__nope", `{}`); r.OK {
		t.Fatal("up__nope succeeded")
	}

	got := spans.GetSpans()
	var tool, upstream *tracetest.SpanStub
	for i := range got {
		switch got[i].Name {
		case "execute_tool up__echo":
			tool = &got[i]
		case "tools/call echo":
			upstream = &got[i]
		}
	}
	if tool == nil || upstream == nil {
		t.Fatalf("spans %v: want execute_tool up__echo and tools/call echo", spanNames(got))
	}
	if upstream.Parent.SpanID() != tool.SpanContext.SpanID() || upstream.SpanContext.TraceID() != tool.SpanContext.TraceID() {
		t.Fatalf("tools/call is not the tool span's child: parent %s, tool span %s", upstream.Parent.SpanID(), tool.SpanContext.SpanID())
	}
	tp_, _ := ms.last()["traceparent"].(string)
	want := "00-" + upstream.SpanContext.TraceID().String() + "-" + upstream.SpanContext.SpanID().String() + "-01"
	if tp_ != want {
		t.Fatalf("the server got traceparent %q, want %q (the upstream span's)", tp_, want)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name != "toolgen.tool.calls" {
				continue
			}
			for _, dp := range mt.Data.(metricdata.Sum[int64]).DataPoints {
				tool, _ := dp.Attributes.Value("tool")
				status, _ := dp.Attributes.Value("status")
				counts[tool.AsString()+"/"+status.AsString()] += dp.Value
			}
		}
	}
	if counts["up__echo/ok"] != 1 || counts["/blocked"] != 1 {
		t.Fatalf("toolgen.tool.calls = %v, want up__echo/ok 1 and an unknown name under /blocked", counts)
	}
}

// Without providers nothing is recorded and no _meta is sent.
func TestTelemetryOffSendsNoMeta(t *testing.T) {
	ms := newMetaServer(t)
	h := NewHost(nil)
	t.Cleanup(func() { h.Close() })
	s := open(t, metaRegistry(ms.url), "a", Options{Logger: (&events{}).logger(), Host: h})
	mustOK(t, call(t, s, "up__echo", `{}`))
	if meta := ms.last(); len(meta) != 0 {
		t.Fatalf("telemetry off, the server got _meta %v", meta)
	}
}

func spanNames(ss tracetest.SpanStubs) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// A call logs tool.start (debug) before it runs and tool.call after, at
// info when it succeeded: one line per call for the request log.
func TestToolStartAndInfoCallEvents(t *testing.T) {
	ms := newMetaServer(t)
	h := NewHost(nil)
	t.Cleanup(func() { h.Close() })
	ev := &events{}
	s := open(t, metaRegistry(ms.url), "a", Options{Logger: ev.logger(), Host: h})
	mustOK(t, call(t, s, "up__echo", `{"x":1}`))
	start := ev.requireOne(t, EventToolStart, "tool", "up__echo")
	done := ev.requireOne(t, EventToolCall, "tool", "up__echo")
	if start.Level != slog.LevelDebug || start.Attrs["server"] != "up" || start.Attrs["agent"] != "a" || start.Attrs["chars_in"] != "7" {
		t.Errorf("tool.start = %+v", start)
	}
	if done.Level != slog.LevelInfo || done.Attrs["status"] != "ok" {
		t.Errorf("tool.call = %+v, want info and status ok", done)
	}
	ev.mu.Lock()
	var names []string
	for _, r := range ev.recs {
		names = append(names, r.Name)
	}
	ev.mu.Unlock()
	if i, j := slices.Index(names, EventToolStart), slices.Index(names, EventToolCall); i < 0 || j < i {
		t.Errorf("events %v: want tool.start before tool.call", names)
	}
}
