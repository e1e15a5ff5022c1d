package main

import "testing"

// The ratios come from servedbench's median row and CPU line as printed.
func TestServedRatios(t *testing.T) {
	out := []byte(`served path: 2 alternating rounds of 150 echo calls each side
round      direct      relay      agent  relay×  agent×
1           741µs    1.134ms    2.177ms   1.53x   2.94x
median      740µs    1.019ms    2.055ms   1.38x   2.76x
CPU per call: direct: host 419µs, server 616µs; relay: host 425µs, relay 256µs, server 821µs; agent: host 524µs, agent 1.024ms, server 1.097ms
`)
	lat, cpu, err := servedRatios(out)
	if err != nil {
		t.Fatal(err)
	}
	if lat != 2 || cpu != 4 {
		t.Errorf("latency ratio %v, CPU ratio %v; want 2 and 4", lat, cpu)
	}
	if _, _, err := servedRatios([]byte("servedbench: no node\n")); err == nil {
		t.Error("no error for output without a median row")
	}
}

// Benchmark lines give one value per unit and run, read as medians.
func TestResultsMedian(t *testing.T) {
	r := parse([]byte(`goos: linux
BenchmarkToolFind10k/queries=toolret/enriched=true-2   600   734293 ns/op   84280 p50-ns   185661 p90-ns   6166 B/op   21 allocs/op
BenchmarkToolFind10k/queries=toolret/enriched=true-2   600   700000 ns/op   90000 p50-ns   185661 p90-ns   6166 B/op   21 allocs/op
BenchmarkToolFind10k/queries=toolret/enriched=true-2   600   800000 ns/op   70000 p50-ns   185661 p90-ns   6166 B/op   21 allocs/op
PASS
`))
	if got := r.median("BenchmarkToolFind10k/queries=toolret/enriched=true", "p50-ns"); got != 84280 {
		t.Errorf("median p50 %v, want 84280", got)
	}
	if got := r.median("BenchmarkSessionCall", "ns/op"); got != 0 {
		t.Errorf("absent benchmark: %v, want 0", got)
	}
}
