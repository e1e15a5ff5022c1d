package telemetry_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/telemetry"
)

// The caller is a label of toolgen_tool_calls_total, bounded: the first 50
// callers are named, the calls of any later one count as "other".
func TestCallerLabelIsBounded(t *testing.T) {
	noOTLP(t)
	ctx := context.Background()
	sdk, err := telemetry.Setup(ctx, telemetry.Options{Prometheus: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sdk.Shutdown(ctx)
	in := telemetry.New(sdk.MeterProvider(), nil)
	for i := range 60 {
		for range 2 { // a named caller's second call finds its label again
			_, c := in.StartCall(ctx, "echo", "go", "")
			c.SetCaller(fmt.Sprintf("user-%02d", i))
			c.End(time.Millisecond, telemetry.StatusOK, 1, "")
		}
	}
	_, c := in.StartCall(ctx, "echo", "go", "")
	c.SetCaller("user-00")
	c.End(time.Millisecond, telemetry.StatusFailed, 0, "no")

	counts := map[string]float64{}
	for _, m := range scrape(t, sdk.MetricsHandler())["toolgen_tool_calls_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["tool"] != "echo" {
			t.Errorf("series %v", labels)
		}
		counts[labels["caller"]+"/"+labels["status"]] += m.GetCounter().GetValue()
	}
	if len(counts) != 52 || counts["user-00/ok"] != 2 || counts["user-00/failed"] != 1 || counts["user-49/ok"] != 2 ||
		counts["other/ok"] != 20 || counts["user-50/ok"] != 0 {
		t.Fatalf("calls by caller/status: %v", counts)
	}
}
