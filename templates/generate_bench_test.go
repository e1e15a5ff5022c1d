package templates

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// BenchmarkGenerateSynthetic is `toolgen generate` without the file writes
// on the synthetic spec of TestWriteSynthetic: 10,000 tools and 1,000
// agents (DESIGN §7: ≤ 2 s). Besides the total it reports the two phases,
// loading the HCL (load-ms) and emitting the files (emit-ms), and the peak
// heap in use. BenchmarkGenerateSmall is the baseline, a spec a hundred
// times smaller. The GC runs at 400%, like the CLI. Run with -benchtime=3x: one iteration takes seconds.
func BenchmarkGenerateSynthetic(b *testing.B) {
	dir := b.TempDir()
	writeSynthetic(b, dir, 10000, 1000)
	// As cmd/toolgen generate does: the process is short-lived and
	// allocation-heavy.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var load, emit time.Duration
	var peak uint64
	for b.Loop() {
		start := time.Now()
		spec, diags := spechcl.Load(dir)
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		loaded := time.Now()
		if _, diags := Generate(spec); diags.HasErrors() {
			b.Fatal(diags)
		}
		load += loaded.Sub(start)
		emit += time.Since(loaded)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	b.ReportMetric(float64(load.Milliseconds())/float64(b.N), "load-ms")
	b.ReportMetric(float64(emit.Milliseconds())/float64(b.N), "emit-ms")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
