package serve

import "testing"

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
