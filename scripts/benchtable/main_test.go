package main

import "testing"

// The ratios come from servedbench's median row and CPU line as printed.
func TestServedRatios(t *testing.T) {
	out := []byte(`served path: 2 alternating rounds of 150 echo calls each side
round      direct      relay      agent  relay×  agent×
1           741µs    1.134ms    2.177ms   1.53x   2.94x
median      740µs    1.000ms    2.000ms   1.35x   2.70x
CPU per call: direct: host 419µs, server 616µs; relay: host 425µs, relay 256µs, server 821µs; agent: host 524µs, agent 1.024ms, server 1.097ms
`)
	s, err := servedRatios(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.latency != 2 || s.cpu != 4 || s.rev != 0 {
		t.Errorf("latency ratio %v, CPU ratio %v, revision ratio %v; want 2, 4 and 0", s.latency, s.cpu, s.rev)
	}
	if _, err := servedRatios([]byte("servedbench: no node\n")); err == nil {
		t.Error("no error for output without a median row")
	}
}

// With a 2026-07-28 host's column, the columns are read by the header's
// names and the revisions compared.
func TestServedRatiosTwoRevisions(t *testing.T) {
	out := []byte(`round      direct      relay      agent    agent26  relay×  agent× agent26×   26/25
1           455µs      579µs      687µs      743µs   1.27x   1.51x    1.63x   1.08x
median      300µs      400µs      600µs      900µs   1.33x   2.00x    3.00x   1.50x
CPU per call: direct: host 240µs, server 298µs; relay: host 238µs, relay 100µs, server 325µs; agent: host 307µs, agent 300µs, server 359µs; agent26: host 284µs, agent 450µs, server 335µs
`)
	s, err := servedRatios(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.latency != 1.5 || s.cpu != 3 || s.rev != 1.5 || s.revCPU != 1.5 {
		t.Errorf("got %+v; want latency 1.5, cpu 3, rev 1.5, revCPU 1.5", s)
	}
}

// With the raw host's and relay1's columns, their ratios are read too.
func TestServedRatiosRawHostAndRelay1(t *testing.T) {
	out := []byte(`round      direct      relay      agent    agent26      raw25      raw26     relay1  relay×  agent× agent26×   26/25 raw26/25
median      300µs      400µs      600µs      900µs      200µs      300µs      240µs   1.33x   2.00x    3.00x   1.50x   1.50x
CPU per call: direct: host 240µs, server 298µs; relay: host 238µs, relay 100µs, server 325µs; agent: host 307µs, agent 300µs, server 359µs; agent26: host 284µs, agent 450µs, server 335µs; raw25: host 75µs, agent 100µs, server 250µs; raw26: host 80µs, agent 80µs, server 260µs; relay1: host 290µs, relay 60µs, server 280µs
`)
	s, err := servedRatios(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.latency != 1.5 || s.cpu != 3 || s.rev != 1.5 || s.revCPU != 1.5 || s.raw != 1.5 || s.rawCPU != 0.8 || s.one != 2.5 || s.oneCPU != 5 {
		t.Errorf("got %+v; want latency 1.5, cpu 3, rev 1.5, revCPU 1.5, raw 1.5, rawCPU 0.8, one 2.5, oneCPU 5", s)
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
