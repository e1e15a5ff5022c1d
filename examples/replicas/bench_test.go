package main

import (
	"slices"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
)

// BenchmarkStore: the same calls to one replica over loopback HTTP, with
// the embedded store (--stateless, spills on local disk) and with Redis
// (--store): echo touches no store, report spills (a write to the store).
// p50-ms is the median call; the difference between the two is what the
// store adds. A benchmark, not a test: nothing here asserts a time.
//
//	go test -run '^$' -bench Store -benchtime 300x ./examples/replicas/
func BenchmarkStore(b *testing.B) {
	redistest.Need(b, "redis-server")
	// Redis's own default for the append-only file (fsync once a second);
	// the tests' fsync on every write would measure the disk, not the store.
	srv := redistest.Start(b, "--appendfsync", "everysec")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"embedded", []string{"--stateless"}},
		{"redis", []string{"--store", srv.URL()}},
	} {
		addr := startReplica(b, c.args...)
		for _, call := range []struct {
			name string
			tool string
			args any
		}{
			{"no-store", "echo", map[string]string{"text": "hi"}},
			{"spill", "report", map[string]int{"lines": 300}},
		} {
			b.Run(c.name+"/"+call.name, func(b *testing.B) {
				lat := make([]time.Duration, 0, b.N)
				for b.Loop() {
					start := time.Now()
					r := callTool(addr, call.tool, call.args)
					lat = append(lat, time.Since(start))
					if r.Err != nil || r.IsError {
						b.Fatalf("%+v", r)
					}
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}

// startReplica runs one replica (no balancer) for a benchmark.
func startReplica(b *testing.B, args ...string) string {
	b.Helper()
	bin := agentBinaryB(b)
	addr := "127.0.0.1:" + itoa(redistest.FreePort(b))
	r := &replica{name: "bench", addr: addr, log: &syncBuffer{}, done: make(chan struct{})}
	r.cmd = newServe(bin, addr, args)
	r.cmd.Stdout, r.cmd.Stderr = r.log, r.log
	r.cmd.Dir = b.TempDir()
	if err := r.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	b.Cleanup(r.stop)
	if err := redistest.WaitPort(addr, 30*time.Second); err != nil {
		b.Fatalf("%v\n%s", err, r.log)
	}
	return addr
}
