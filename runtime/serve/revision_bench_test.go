package serve

import (
	"encoding/json"
	rt "runtime"
	"testing"
)

// What a stdio tools/call costs the agent for a host of each revision.
// The host is raw lines (no client library), so the figures are the
// agent's alone: a 2025-11-25 host initializes once and then sends plain
// calls; a 2026-07-28 host sends the revision, its capabilities and its
// client info in every call's _meta, as go-sdk's client does. Issue 22
// wants the second no dearer than the first.
func BenchmarkStdioCallByRevision(b *testing.B) {
	for _, rev := range []string{"2025-11-25", StatelessRevision} {
		b.Run(rev, func(b *testing.B) {
			call, stop := stdioHost(b, rev)
			defer stop()
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
}

// BenchmarkProxiedCallByRevision is BenchmarkProxiedCall for a host of
// each revision: go-sdk's client over OS pipes to ServeIO, the echo
// fixture upstream over stdio. A 2026-07-28 client sends its revision,
// capabilities and info in every call's _meta.
func BenchmarkProxiedCallByRevision(b *testing.B) {
	for _, rev := range []string{"2025-11-25", StatelessRevision} {
		b.Run(rev, func(b *testing.B) {
			p := newProxied(b, rev)
			args := json.RawMessage(`{"text":"hello from the benchmark"}`)
			for range 100 {
				p.call(b, args)
			}
			before := leanStatelessCalls.Load()
			rt.GC()
			g0, c0 := goroutinesCreated(), cpuTime()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if res := p.call(b, args); res.IsError {
					b.Fatal("tool error")
				}
			}
			b.ReportMetric(float64(goroutinesCreated()-g0)/float64(b.N), "goroutines/op")
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
			if rev == StatelessRevision && leanStatelessCalls.Load()-before < int64(b.N) {
				b.Fatalf("go-sdk's 2026-07-28 calls did not take the lean path")
			}
		})
	}
}
