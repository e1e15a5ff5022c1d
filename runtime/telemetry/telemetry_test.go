package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/toolgen-dev/toolgen/runtime/telemetry"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// noOTLP clears the variables that would make Setup export, so that a
// developer's own environment cannot change what a test sees.
func noOTLP(t testing.TB) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
		"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"} {
		t.Setenv(v, "")
	}
}

// echoServer is a real go-sdk MCP server on loopback (streamable HTTP)
// whose echo tool reports the _meta it was sent; the returned session is
// a go-sdk client connected to it.
func echoServer(t *testing.T) (*mcp.ClientSession, <-chan map[string]any) {
	t.Helper()
	metas := make(chan map[string]any, 16)
	s := mcp.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
			metas <- req.Params.GetMeta()
			if a.Text == "fail" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "failed as asked"}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "toolgen-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, metas
}

// callUpstream does what the call pipeline does for an MCP tool: a call
// span, the upstream span under it, trace context in _meta, both ended.
func callUpstream(t *testing.T, in *telemetry.Instruments, cs *mcp.ClientSession, text string) {
	t.Helper()
	ctx, call := in.StartCall(context.Background(), "alpha__echo", "mcp", "alpha")
	uctx, up := in.StartUpstream(ctx, "alpha", "echo")
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}}
	params.Meta = in.InjectMeta(uctx, params.Meta)
	res, err := cs.CallTool(uctx, params)
	if err != nil {
		up.End(err.Error(), false)
		call.End(time.Millisecond, telemetry.StatusFailed, 0, err.Error())
		t.Fatal(err)
	}
	up.End("", res.IsError)
	if res.IsError {
		call.End(time.Millisecond, telemetry.StatusFailed, 0, "failed as asked")
		return
	}
	call.End(time.Millisecond, telemetry.StatusOK, len(text), "")
}

// record runs the pipeline's other recordings once.
func record(in *telemetry.Instruments) {
	ctx := context.Background()
	_, c := in.StartCall(ctx, "build_report", "go", "")
	c.End(time.Millisecond, telemetry.StatusFailed, 0, "timeout after 30s")
	in.Blocked(ctx, "nope", false)
	in.Blocked(ctx, "invented", false)
	in.Blocked(ctx, "quote", true)
	in.QueueWait(ctx, "github", 30*time.Millisecond)
	in.ServerHealth("alpha", "green")
	in.ServerHealth("alpha", "red")
	in.Spilled(ctx, 5000)
	in.BudgetUsed("coder", 1200, 200000)
}

// The OTLP exporters send a span per tool call with the upstream MCP call
// as its child, and every metric, to the endpoint the standard variables
// name; the MCP server received the upstream span's trace context in
// _meta.
func TestOTLPExportToARealReceiver(t *testing.T) {
	noOTLP(t)
	rc := newReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.srv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "statuspage-test")
	ctx := context.Background()
	sdk, err := telemetry.Setup(ctx, telemetry.Options{ServiceName: "ignored-for-env"})
	if err != nil {
		t.Fatal(err)
	}
	if m, tr := sdk.Exporting(); !m || !tr {
		t.Fatalf("Exporting() = %v, %v with OTEL_EXPORTER_OTLP_ENDPOINT set", m, tr)
	}
	in := telemetry.New(sdk.MeterProvider(), sdk.TracerProvider())
	cs, metas := echoServer(t)
	callUpstream(t, in, cs, "hello")
	meta := <-metas
	callUpstream(t, in, cs, "fail")
	<-metas
	record(in)
	if err := sdk.Shutdown(ctx); err != nil { // flushes both exporters
		t.Fatal(err)
	}

	spans, resources := rc.allSpans()
	if len(spans) != 5 {
		t.Fatalf("%d spans exported, want 5 (2 calls × 2, and build_report)", len(spans))
	}
	if got := resourceAttr(resources[0].Resource.Attributes, "service.name"); got != "statuspage-test" {
		t.Errorf("service.name = %q, want OTEL_SERVICE_NAME's", got)
	}
	byName := map[string][]int{}
	for i, s := range spans {
		byName[s.Name] = append(byName[s.Name], i)
	}
	calls, ups := byName["execute_tool alpha__echo"], byName["tools/call echo"]
	if len(calls) != 2 || len(ups) != 2 || len(byName["execute_tool build_report"]) != 1 {
		t.Fatalf("span names %v", keys(byName))
	}
	first := spans[ups[0]]
	var parent = spans[calls[0]]
	for _, i := range calls {
		if bytes.Equal(spans[i].SpanId, first.ParentSpanId) {
			parent = spans[i]
		}
	}
	if !bytes.Equal(first.ParentSpanId, parent.SpanId) || !bytes.Equal(first.TraceId, parent.TraceId) {
		t.Error("the upstream span is not a child of the tool call's span")
	}
	if first.Kind.String() != "SPAN_KIND_CLIENT" || resourceAttr(first.Attributes, "mcp.method.name") != "tools/call" ||
		resourceAttr(first.Attributes, "gen_ai.tool.name") != "echo" || resourceAttr(first.Attributes, "toolgen.server") != "alpha" {
		t.Errorf("upstream span %s: kind %s, attributes %v", first.Name, first.Kind, first.Attributes)
	}
	wantTP := "00-" + hexs(first.TraceId) + "-" + hexs(first.SpanId) + "-01"
	if meta["traceparent"] != wantTP {
		t.Errorf("the server got _meta %v, want traceparent %s", meta, wantTP)
	}
	var failedUp int
	for _, i := range ups {
		if spans[i].Status.GetCode().String() == "STATUS_CODE_ERROR" {
			failedUp++
		}
	}
	if failedUp != 1 {
		t.Errorf("%d upstream spans with an error status, want 1 (the isError result)", failedUp)
	}

	m := rc.metric("toolgen.tool.calls")
	if m == nil {
		t.Fatalf("toolgen.tool.calls not exported")
	}
	got := map[string]int64{}
	for _, dp := range m.GetSum().DataPoints {
		got[resourceAttr(dp.Attributes, "tool")+" "+resourceAttr(dp.Attributes, "status")] = dp.GetAsInt()
	}
	want := map[string]int64{"alpha__echo ok": 1, "alpha__echo failed": 1, "build_report failed": 1, " blocked": 2, "quote blocked": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("toolgen.tool.calls (-want +got):\n%s", diff)
	}
	for _, name := range []string{"toolgen.tool.call.duration", "toolgen.tool.calls.in_flight", "toolgen.queue.wait.duration",
		"toolgen.upstream.call.duration", "toolgen.server.health", "toolgen.spill", "toolgen.context_budget.used", "toolgen.tool.output"} {
		if rc.metric(name) == nil {
			t.Errorf("%s not exported", name)
		}
	}
	if h := rc.metric("toolgen.upstream.call.duration").GetHistogram(); h == nil || len(h.DataPoints) != 2 {
		t.Errorf("upstream durations: %v, want one series per status", h)
	}
}

// /metrics is the Prometheus exposition of the same instruments under
// toolgen_… names, as Prometheus users expect them: counters with _total,
// durations in seconds, health as one series per colour.
func TestPrometheusScrape(t *testing.T) {
	noOTLP(t)
	ctx := context.Background()
	sdk, err := telemetry.Setup(ctx, telemetry.Options{Prometheus: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sdk.Shutdown(ctx)
	if m, tr := sdk.Exporting(); m || tr || sdk.TracerProvider() != nil {
		t.Fatalf("OTLP on without an endpoint: metrics %v, traces %v", m, tr)
	}
	in := telemetry.New(sdk.MeterProvider(), sdk.TracerProvider())
	cs, metas := echoServer(t)
	callUpstream(t, in, cs, "hello")
	callUpstream(t, in, cs, "world")
	<-metas
	<-metas
	if InjectMetaWithoutSpan := in.InjectMeta(ctx, nil); InjectMetaWithoutSpan != nil {
		t.Errorf("InjectMeta without a span made %v", InjectMetaWithoutSpan)
	}
	record(in)
	_, open := in.StartCall(ctx, "alpha__echo", "mcp", "alpha") // in flight while scraped

	fams := scrape(t, sdk.MetricsHandler())
	open.End(time.Millisecond, telemetry.StatusOK, 1, "")
	type series struct {
		labels string
		value  float64
	}
	values := func(name string) []series {
		f := fams[name]
		if f == nil {
			t.Errorf("no family %s (have %v)", name, keys(fams))
			return nil
		}
		var out []series
		for _, m := range f.Metric {
			var ls []string
			for _, l := range m.Label {
				if l.GetValue() != "" {
					ls = append(ls, l.GetName()+"="+l.GetValue())
				}
			}
			sort.Strings(ls)
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
			out = append(out, series{strings.Join(ls, ","), v})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].labels < out[j].labels })
		return out
	}
	check := func(name string, want ...series) {
		t.Helper()
		if diff := cmp.Diff(want, values(name), cmp.AllowUnexported(series{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	check("toolgen_tool_calls_total",
		series{"kind=go,status=failed,tool=build_report", 1},
		series{"kind=mcp,server=alpha,status=ok,tool=alpha__echo", 2},
		series{"status=blocked", 2},
		series{"status=blocked,tool=quote", 1})
	check("toolgen_tool_call_duration_seconds",
		series{"kind=go,status=failed,tool=build_report", 1},
		series{"kind=mcp,server=alpha,status=ok,tool=alpha__echo", 2})
	check("toolgen_tool_calls_in_flight", series{"tool=alpha__echo", 1}, series{"tool=build_report", 0})
	check("toolgen_tool_output_bytes_total", series{"tool=alpha__echo", 10})
	check("toolgen_queue_wait_duration_seconds", series{"queue=github", 1})
	check("toolgen_upstream_call_duration_seconds", series{"server=alpha,status=ok", 2})
	check("toolgen_server_health", series{"health=green,server=alpha", 0}, series{"health=red,server=alpha", 1}, series{"health=yellow,server=alpha", 0})
	check("toolgen_spill_bytes_total", series{"", 5000})
	check("toolgen_context_budget_used", series{"agent=coder", 1200})
	check("toolgen_context_budget_limit", series{"agent=coder", 200000})

	qw := fams["toolgen_queue_wait_duration_seconds"].Metric[0].GetHistogram()
	if qw.GetSampleSum() < 0.029 || qw.GetSampleSum() > 0.031 {
		t.Errorf("queue wait sum %v s, want 0.03", qw.GetSampleSum())
	}
	if f := fams["toolgen_tool_calls_total"]; f.GetType() != dto.MetricType_COUNTER || !strings.Contains(f.GetHelp(), "by tool") {
		t.Errorf("toolgen_tool_calls_total: type %v, help %q", f.GetType(), f.GetHelp())
	}
	if _, ok := fams["target_info"]; !ok {
		t.Error("no target_info (the resource)")
	}
}

// scrape GETs the Prometheus text format and parses it with Prometheus's
// own parser.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("Content-Type %q", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// Without an endpoint nothing is exported; an unsupported protocol or an
// exporter of "none" is honoured per signal, and said.
func TestOTLPOnlyWhenConfigured(t *testing.T) {
	rc := newReceiver(t)
	for _, tc := range []struct {
		name          string
		env           map[string]string
		metrics, tr   bool
		warn          string
		tracerPresent bool
	}{
		{name: "no variables"},
		{name: "both", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rc.srv.URL}, metrics: true, tr: true},
		{name: "traces only by endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": rc.srv.URL + "/v1/traces"}, tr: true},
		{name: "metrics exporter none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rc.srv.URL, "OTEL_METRICS_EXPORTER": "none"}, tr: true},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rc.srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, warn: "only http/protobuf"},
		{name: "grpc for traces", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rc.srv.URL, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, metrics: true, warn: "only http/protobuf"},
		{name: "zipkin", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rc.srv.URL, "OTEL_TRACES_EXPORTER": "zipkin"}, metrics: true, warn: "only otlp"},
		{name: "sdk disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rc.srv.URL, "OTEL_SDK_DISABLED": "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noOTLP(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var logs bytes.Buffer
			sdk, err := telemetry.Setup(context.Background(), telemetry.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer sdk.Shutdown(context.Background())
			m, tr := sdk.Exporting()
			if m != tc.metrics || tr != tc.tr {
				t.Errorf("Exporting() = metrics %v, traces %v; want %v, %v", m, tr, tc.metrics, tc.tr)
			}
			if (sdk.TracerProvider() != nil) != tc.tr || (sdk.MeterProvider() != nil) != tc.metrics {
				t.Errorf("providers: tracer %v, meter %v", sdk.TracerProvider() != nil, sdk.MeterProvider() != nil)
			}
			if !strings.Contains(logs.String(), tc.warn) || (tc.warn == "") != (logs.Len() == 0) {
				t.Errorf("log %q, want a warning with %q", logs.String(), tc.warn)
			}
		})
	}
}

// Nil instruments (telemetry off) take every call and do nothing.
func TestNilInstruments(t *testing.T) {
	var in *telemetry.Instruments
	if in = telemetry.New(nil, nil); in != nil {
		t.Fatal("New(nil, nil) is not nil")
	}
	ctx := context.Background()
	cctx, c := in.StartCall(ctx, "t", "go", "")
	uctx, u := in.StartUpstream(cctx, "s", "t")
	if cctx != ctx || uctx != ctx {
		t.Error("nil instruments changed the context")
	}
	u.End("x", true)
	c.End(time.Millisecond, "ok", 1, "")
	record(in)
	if m := in.InjectMeta(uctx, map[string]any{"a": 1}); len(m) != 1 {
		t.Errorf("InjectMeta without a span changed _meta: %v", m)
	}
}

// ExtractMeta reads what InjectMeta wrote: a host's trace goes on in the
// agent's spans.
func TestExtractMetaContinuesTheTrace(t *testing.T) {
	noOTLP(t)
	rc := newReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rc.srv.URL+"/v1/traces")
	sdk, err := telemetry.Setup(context.Background(), telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := telemetry.New(nil, sdk.TracerProvider())
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := telemetry.ExtractMeta(context.Background(), map[string]any{"traceparent": tp, "progressToken": 3})
	_, c := in.StartCall(ctx, "t", "go", "")
	c.End(time.Millisecond, telemetry.StatusOK, 0, "")
	if err := sdk.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans, _ := rc.allSpans()
	if len(spans) != 1 || hexs(spans[0].TraceId) != "4bf92f3577b34da6a3ce929d0e0e4736" || hexs(spans[0].ParentSpanId) != "00f067aa0ba902b7" {
		t.Fatalf("spans %v: want one under the host's traceparent", spans)
	}
}

func resourceAttr(attrs []*commonpb.KeyValue, key string) string {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value.GetStringValue()
		}
	}
	return ""
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
