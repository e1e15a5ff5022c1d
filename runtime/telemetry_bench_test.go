package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// BenchmarkSessionCallTelemetry is BenchmarkSessionCall with telemetry off
// (no providers: the path every session without --http/--ui takes) and on
// (the agent binary's SDK: Prometheus metrics, and spans to a tracer
// provider with no exporter, so that only recording is measured).
func BenchmarkSessionCallTelemetry(b *testing.B) {
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	run := func(b *testing.B, o Options) {
		reg := &Registry{
			Defaults: decl.Defaults{ResponseMaxBytes: 100000},
			Tools:    []decl.Tool{{Name: "noop", Kind: decl.KindGo, Go: benchTool}},
			Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseTool, Name: "noop"}}}},
		}
		o.Logger = slog.New(slog.DiscardHandler)
		s, err := Open(ctx, reg, "a", o)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		for b.Loop() {
			if r := s.Call(ctx, "noop", args); !r.OK {
				b.Fatal(r.Error)
			}
		}
	}
	b.Run("off", func(b *testing.B) { run(b, Options{}) })
	b.Run("metrics", func(b *testing.B) {
		sdk, err := telemetry.Setup(ctx, telemetry.Options{Prometheus: true})
		if err != nil {
			b.Fatal(err)
		}
		defer sdk.Shutdown(ctx)
		run(b, Options{MeterProvider: sdk.MeterProvider()})
	})
}
