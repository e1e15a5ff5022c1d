package eventhub

import (
	"context"
	"log/slog"
	"testing"
)

// What the hub adds to one tool.call record: the runtime's logger alone
// (a JSON handler at info, which drops the debug record; and at debug,
// which writes it), then behind the hub with no page open, then with one
// page reading the stream.
func BenchmarkToolCallRecord(b *testing.B) {
	ctx := context.Background()
	base := slog.NewJSONHandler(discard{}, &slog.HandlerOptions{Level: slog.LevelInfo})
	logCall := func(b *testing.B, l *slog.Logger) {
		b.ReportAllocs()
		for b.Loop() {
			if l.Enabled(ctx, slog.LevelDebug) { // as the runtime does
				l.LogAttrs(ctx, slog.LevelDebug, "tool.call",
					slog.String("tool", "alpha__echo"), slog.String("server", "alpha"), slog.String("agent", "coder"),
					slog.Float64("latency_ms", 1.25), slog.Int("chars_in", 16), slog.Int("chars_out", 5),
					slog.String("status", "ok"), slog.String("kind", "mcp"), slog.String("namespace", "alpha"))
			}
		}
	}
	b.Run("log only", func(b *testing.B) { logCall(b, slog.New(base)) })
	b.Run("log at debug", func(b *testing.B) {
		logCall(b, slog.New(slog.NewJSONHandler(discard{}, &slog.HandlerOptions{Level: slog.LevelDebug})))
	})
	b.Run("hub", func(b *testing.B) { logCall(b, slog.New(New(Options{}).Handler(base))) })
	b.Run("hub+reader", func(b *testing.B) {
		h := New(Options{})
		_, s := h.Subscribe(0, 1024)
		done := make(chan struct{})
		go func() {
			for range s.C {
			}
			close(done)
		}()
		logCall(b, slog.New(h.Handler(base)))
		s.Close()
		<-done
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
