package telemetry_test

import (
	"context"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/telemetry"
)

// What recording one tool call costs the pipeline (StartCall + End):
// telemetry off (nil Instruments), metrics only (Prometheus), and metrics
// with spans exported over OTLP to a loopback receiver. baseline is the
// loop alone.
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
		}
	})
	bench := func(b *testing.B, in *telemetry.Instruments) {
		b.ReportAllocs()
		for b.Loop() {
			_, c := in.StartCall(ctx, "alpha__echo", "mcp", "alpha")
			c.End(time.Millisecond, telemetry.StatusOK, 42, "")
		}
	}
	b.Run("disabled", func(b *testing.B) { bench(b, nil) })
	b.Run("metrics", func(b *testing.B) {
		noOTLPB(b)
		sdk, err := telemetry.Setup(ctx, telemetry.Options{Prometheus: true})
		if err != nil {
			b.Fatal(err)
		}
		defer sdk.Shutdown(ctx)
		bench(b, telemetry.New(sdk.MeterProvider(), nil))
	})
	b.Run("metrics+traces", func(b *testing.B) {
		noOTLPB(b)
		rc := newReceiver(b)
		b.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rc.srv.URL+"/v1/traces")
		sdk, err := telemetry.Setup(ctx, telemetry.Options{Prometheus: true})
		if err != nil {
			b.Fatal(err)
		}
		defer sdk.Shutdown(ctx)
		bench(b, telemetry.New(sdk.MeterProvider(), sdk.TracerProvider()))
	})
}

// An MCP call adds the upstream span and the trace context in _meta.
func BenchmarkUpstream(b *testing.B) {
	ctx := context.Background()
	bench := func(b *testing.B, in *telemetry.Instruments) {
		b.ReportAllocs()
		for b.Loop() {
			cctx, c := in.StartCall(ctx, "alpha__echo", "mcp", "alpha")
			uctx, u := in.StartUpstream(cctx, "alpha", "echo")
			_ = in.InjectMeta(uctx, nil)
			u.End("", false)
			c.End(time.Millisecond, telemetry.StatusOK, 42, "")
		}
	}
	b.Run("disabled", func(b *testing.B) { bench(b, nil) })
	b.Run("metrics+traces", func(b *testing.B) {
		noOTLPB(b)
		rc := newReceiver(b)
		b.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", rc.srv.URL+"/v1/traces")
		sdk, err := telemetry.Setup(ctx, telemetry.Options{Prometheus: true})
		if err != nil {
			b.Fatal(err)
		}
		defer sdk.Shutdown(ctx)
		bench(b, telemetry.New(sdk.MeterProvider(), sdk.TracerProvider()))
	})
}

func noOTLPB(b *testing.B) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED"} {
		b.Setenv(v, "")
	}
}
