package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// An in-process Go tool call allocates nothing in the pipeline: lookup,
// allow check, latency, result and the (disabled) event check.
func TestSessionCallAllocatesNothing(t *testing.T) {
	reg := &Registry{
		Defaults: decl.Defaults{ResponseMaxBytes: 100000},
		Tools:    []decl.Tool{{Name: "noop", Kind: decl.KindGo, Go: benchTool}},
		Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "noop"}}}},
	}
	s, err := Open(context.Background(), reg, "a", Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	var r Result
	allocs := testing.AllocsPerRun(1000, func() { r = s.Call(ctx, "noop", args) })
	if !r.OK {
		t.Fatal(r.Error)
	}
	if allocs != 0 {
		t.Errorf("Session.Call allocates %v times per call, want 0", allocs)
	}
}

// The duration metric records the latency the Result reports: one
// measurement of the call, not a second clock pair in the recorder.
func TestCallDurationMetricIsTheResultsLatency(t *testing.T) {
	reg := &Registry{
		Defaults: decl.Defaults{ResponseMaxBytes: 100000},
		Tools:    []decl.Tool{{Name: "noop", Kind: decl.KindGo, Go: benchTool}},
		Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "noop"}}}},
	}
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	s, err := Open(context.Background(), reg, "a", Options{Logger: slog.New(slog.DiscardHandler), MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var sum float64
	for range 5 {
		r := s.Call(context.Background(), "noop", json.RawMessage(`{}`))
		mustOK(t, r)
		sum += r.Latency.Seconds()
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var got float64
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "toolgen.tool.call.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				got += dp.Sum
				n += dp.Count
			}
		}
	}
	if n != 5 {
		t.Fatalf("%d durations recorded, want 5", n)
	}
	if diff := got - sum; diff > 1e-12 || diff < -1e-12 {
		t.Errorf("recorded durations sum to %gs, the Results' latencies to %gs", got, sum)
	}
}

// tool_find's overview (the answer when no word of the query matches)
// reads every loadable tool; it is made once per pool snapshot and
// surface, so that a model asking in words the catalog lacks does not
// pay for the whole catalog on every call.
func TestToolFindOverviewIsKept(t *testing.T) {
	reg := catalogRegistry(2000)
	h := NewHost(slog.New(slog.DiscardHandler))
	defer h.Close()
	s := openCatalog(t, h, reg, "discovery")
	defer s.Close()
	args := json.RawMessage(`{"query":"qqqqzz"}`)
	first := s.Call(context.Background(), decl.ToolFind, args)
	mustOK(t, first)
	if !strings.Contains(first.Result, "the tools here are about") {
		t.Fatalf("no overview: %s", first.Result)
	}
	var again Result
	allocs := testing.AllocsPerRun(20, func() { again = s.Call(context.Background(), decl.ToolFind, args) })
	if again.Result != first.Result {
		t.Errorf("the kept overview differs:\n%s\nfirst:\n%s", again.Result, first.Result)
	}
	if allocs > 200 {
		t.Errorf("a repeated overview allocates %v times, want it kept (≤ 200)", allocs)
	}
	// a tool_load changes the surface: the overview is made again
	mustOK(t, s.Call(context.Background(), decl.ToolLoad, json.RawMessage(`{"names":["`+reg.Tools[0].Name+`"]}`)))
	mustOK(t, s.Call(context.Background(), decl.ToolFind, args))
}
