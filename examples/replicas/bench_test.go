package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
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

// BenchmarkStoreThroughput: one replica with Redis, 16 hosts calling at
// once; reports calls per second of the replica's own CPU time (user +
// system, from /proc), the figure of the README's capacity model, and the
// replica's resident memory after the run. Linux only.
//
//	go test -run '^$' -bench StoreThroughput -benchtime 2000x ./examples/replicas/
func BenchmarkStoreThroughput(b *testing.B) {
	redistest.Need(b, "redis-server")
	srv := redistest.Start(b, "--appendfsync", "everysec")
	addr, pid := startReplicaPID(b, "--store", srv.URL())
	for _, call := range []struct {
		name string
		tool string
		args any
	}{
		{"echo", "echo", map[string]string{"text": "hi"}},
		{"spill", "report", map[string]int{"lines": 300}},
	} {
		b.Run(call.name, func(b *testing.B) {
			cpu0 := cpuTime(b, pid)
			b.SetParallelism(8) // 16 hosts on 2 cores
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if r := callTool(addr, call.tool, call.args); r.Err != nil || r.IsError {
						b.Errorf("%+v", r)
						return
					}
				}
			})
			if used := (cpuTime(b, pid) - cpu0).Seconds(); used > 0 {
				b.ReportMetric(float64(b.N)/used, "calls/cpu-s")
			}
			b.ReportMetric(float64(rss(b, pid))/(1<<20), "rss-MiB")
		})
	}
}

func startReplicaPID(b *testing.B, args ...string) (string, int) {
	addr := startReplica(b, args...)
	// startReplica's process is the newest child serving addr.
	out, err := exec.Command("pgrep", "-n", "-f", "serve --http "+addr).Output()
	if err != nil {
		b.Fatalf("pgrep: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return addr, pid
}

// cpuTime is a process's user + system time (/proc/PID/stat, in ticks of
// 1/100 s).
func cpuTime(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// rss is a process's resident memory in bytes (/proc/PID/status VmRSS).
func rss(b *testing.B, pid int) int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb << 10
		}
	}
	return 0
}
