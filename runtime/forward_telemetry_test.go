package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A forwarded call of an agent with telemetry records what the same call
// run by Call records: the same metrics (calls, durations, output,
// upstream latency, in flight back to 0), the same spans, the same Result
// but for its latency.
func TestForwardRecordsAsCall(t *testing.T) {
	bin := buildEchoFixture(t)
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, StartupTimeout: 30 * time.Second, ResponseMaxBytes: 1 << 20, InitConcurrency: 1, MaxDepth: 1},
		Servers:  []decl.Server{{Name: "echo", Transport: "stdio", Command: bin, Trusted: true, StartupTimeout: 30 * time.Second, ProtocolVersion: "2025-11-25"}},
		Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "echo"}}}},
	}
	s := open(t, reg, "a", Options{Logger: (&events{}).logger(), TracerProvider: tp, MeterProvider: mp})
	ctx := context.Background()
	for _, tc := range []struct{ tool, args string }{
		{"echo__echo", `{"text":"hi"}`},
		{"echo__fail", `{}`},
		{"echo__echo", `{"text":1}`}, // refused by the input schema
	} {
		t.Run(tc.tool+tc.args, func(t *testing.T) {
			spans.Reset()
			before := metricSums(t, reader)
			sync := s.Call(ctx, tc.tool, json.RawMessage(tc.args))
			mid := metricSums(t, reader)
			syncSpans := spanShapes(spans.GetSpans())
			spans.Reset()
			got := make(chan Result, 1)
			if s.Forward(ctx, tc.tool, json.RawMessage(tc.args), func(r Result) { got <- r }) == nil {
				t.Fatal("Forward did not take a call of a stdio server's tool")
			}
			async := <-got
			after := metricSums(t, reader)
			if !reflect.DeepEqual(spanShapes(spans.GetSpans()), syncSpans) {
				t.Errorf("spans differ:\nasync %v\nsync  %v", spanShapes(spans.GetSpans()), syncSpans)
			}
			for k, v := range mid {
				if d, want := after[k]-v, v-before[k]; d != want {
					t.Errorf("%s: the async call added %d, the sync one %d", k, d, want)
				}
			}
			if async.Latency <= 0 {
				t.Errorf("async latency %v", async.Latency)
			}
			async.Latency, sync.Latency = 0, 0
			if !reflect.DeepEqual(async, sync) {
				t.Errorf("results differ:\nasync %+v\nsync  %+v", async, sync)
			}
		})
	}
}

// metricSums is each counter's value and each histogram's count, by
// metric and attributes.
func metricSums(t *testing.T, reader *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					out[m.Name+" "+dp.Attributes.Encoded(attribute.DefaultEncoder())] = dp.Value
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					out[m.Name+" "+dp.Attributes.Encoded(attribute.DefaultEncoder())] = int64(dp.Count)
				}
			}
		}
	}
	return out
}

// spanShapes is each span's name, parent's name, status and attribute
// keys, sorted.
func spanShapes(ss tracetest.SpanStubs) []string {
	names := map[string]string{}
	for _, s := range ss {
		names[s.SpanContext.SpanID().String()] = s.Name
	}
	var out []string
	for _, s := range ss {
		var keys []string
		for _, a := range s.Attributes {
			keys = append(keys, string(a.Key))
		}
		sort.Strings(keys)
		out = append(out, fmt.Sprintf("%s<%s %s %v", s.Name, names[s.Parent.SpanID().String()], s.Status.Code, keys))
	}
	sort.Strings(out)
	return out
}

// A call's context from linkContext ends with the agent context already:
// bound links it no second time (a context and a registration on the
// agent context per call), and teardown still reaches it. A context
// from elsewhere still gets the link.
func TestBoundLinksOnlyUnlinkedContexts(t *testing.T) {
	e := &entry{linked: true}
	for _, linked := range []bool{true, false} {
		agentCtx, endAgent := context.WithCancel(context.Background())
		st := &agentState{ctx: agentCtx}
		parent, cancel := context.WithCancel(context.Background())
		ctx := context.Context(parent)
		if linked {
			ctx = st.linkContext(parent)
		}
		ctx = context.WithValue(ctx, struct{}{}, 1) // as the span and caller wrap it
		got, b := st.bound(ctx, e)
		if linked && (b.unlink != nil || got != ctx) {
			t.Error("a context from linkContext was linked again")
		}
		if !linked && b.unlink == nil {
			t.Error("a context from elsewhere was not linked to the agent context")
		}
		endAgent()
		select {
		case <-got.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("linked=%v: the agent's teardown did not end the call's context", linked)
		}
		b.release()
		cancel()
	}
}
