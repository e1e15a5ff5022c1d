package main

import (
	"errors"
	"strings"
	"testing"
)

const httpOut = `HTTP, 1 concurrent sessions: 3 alternating rounds of 300 echo calls per session
httpbench: sessions=1 side=agent p50=1.68ms p99=6.57ms calls/s=474 cpu/call: server=300µs upstream=100µs client=200µs
httpbench: sessions=1 side=mcp-proxy-http p50=4.83ms p99=27.78ms calls/s=91 cpu/call: server=1ms upstream=100µs client=200µs
httpbench: sessions=10 side=agent p50=9.08ms p99=24.75ms calls/s=928 cpu/call: server=300µs upstream=100µs client=200µs
httpbench: sessions=10 side=mcp-proxy-http p50=17.9ms p99=37.22ms calls/s=505 cpu/call: server=1ms upstream=100µs client=200µs
httpbench: sessions=50 side=agent p50=62.6ms p99=315.65ms calls/s=612 cpu/call: server=487µs upstream=199µs client=369µs
httpbench: sessions=50 side=mcp-proxy-http p50=302.87ms p99=663.67ms calls/s=158 cpu/call: server=1.627ms upstream=404µs client=404µs
httpbench: sessions=50 side=mcp-proxy-sse p50=84.04ms p99=300ms calls/s=459 cpu/call: server=830µs upstream=227µs client=480µs
httpbench: sessions=50 side=mcp-hub-sse p50=94.3ms p99=588.32ms calls/s=392 cpu/call: server=1.049ms upstream=267µs client=535µs
`

// The agent's p99 at 50 sessions is compared with the best peer's (here
// mcp-proxy SSE's 300 ms, so it does not hold); throughput at 1 and 10
// sessions with mcp-proxy HTTP's (10 sessions is under 2×).
func TestHTTPRows(t *testing.T) {
	r, err := parseHTTP([]byte(httpOut))
	if err != nil {
		t.Fatal(err)
	}
	rows := httpRows(r)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if p99 := rows[0]; p99.holds != "no" || !strings.Contains(p99.now, "agent 315.6 ms") || !strings.Contains(p99.now, "1.05× the best") {
		t.Errorf("p99 row %+v", p99)
	}
	if tp := rows[1]; tp.holds != "no" || !strings.Contains(tp.now, "1: 5.2× (474 vs 91 calls/s)") || !strings.Contains(tp.now, "10: 1.8×") {
		t.Errorf("throughput row %+v", tp)
	}

	// A faster agent holds both.
	r[50]["agent"] = httpResult{p99: r[50]["mcp-proxy-sse"].p99 - 1, rate: 1}
	r[10]["agent"] = httpResult{rate: 2 * r[10]["mcp-proxy-http"].rate}
	rows = httpRows(r)
	if rows[0].holds != "yes" || rows[1].holds != "yes" {
		t.Errorf("rows %+v; want both to hold", rows)
	}
}

// The 2026-07-28 host's throughput is compared with the 2025-11-25
// host's at 1 and 10 sessions, with the agent's CPU per call.
func TestRevisionRow(t *testing.T) {
	r, err := parseHTTP([]byte(httpOut + `httpbench: sessions=1 side=agent26 p50=1.7ms p99=6.6ms calls/s=470 cpu/call: server=310µs upstream=100µs client=200µs
httpbench: sessions=10 side=agent26 p50=9ms p99=24ms calls/s=700 cpu/call: server=420µs upstream=100µs client=200µs
`))
	if err != nil {
		t.Fatal(err)
	}
	row := revisionRow(r)
	if row.holds != "no" || !strings.Contains(row.now, "1: 0.99× (470 vs 474 calls/s), agent CPU/call 310µs vs 300µs") || !strings.Contains(row.now, "10: 0.75×") {
		t.Errorf("row %+v", row)
	}
	r[10]["agent26"] = httpResult{rate: r[10]["agent"].rate}
	if row := revisionRow(r); row.holds != "yes" {
		t.Errorf("row %+v; want it to hold", row)
	}
	delete(r[1], "agent26")
	if row := revisionRow(r); row.holds != "no" || !strings.Contains(row.now, "1: not measured") {
		t.Errorf("row %+v", row)
	}
}

// Without a peer's line a row says what was not measured instead of a ratio.
func TestHTTPRowsWithoutPeers(t *testing.T) {
	r, err := parseHTTP([]byte("httpbench: sessions=50 side=agent p50=1ms p99=2ms calls/s=10\n"))
	if err != nil {
		t.Fatal(err)
	}
	rows := httpRows(r)
	if rows[0].holds != "–" || !strings.Contains(rows[0].now, "no peer") || rows[1].holds != "no" || !strings.Contains(rows[1].now, "not measured") {
		t.Errorf("rows %+v", rows)
	}
	if _, err := parseHTTP([]byte("httpbench: sessions=x side=agent\n")); err == nil {
		t.Error("no error for a malformed line")
	}
	if _, err := parseHTTP([]byte("httpbench: no node\n")); err == nil {
		t.Error("no error for output without results")
	}
}

// When httpbench fails, both rows say so (its first line) instead of
// holding or not.
func TestHTTPFailed(t *testing.T) {
	rows := httpFailed(errors.New("go run ./scripts/httpbench: exit status 1\nmore"))
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		if r.holds != "–" || !strings.Contains(r.now, "httpbench failed (go run ./scripts/httpbench: exit status 1)") {
			t.Errorf("row %+v", r)
		}
	}
}
