package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// httpResult is one side at one number of sessions, as scripts/httpbench
// prints it on its "httpbench:" lines.
type httpResult struct {
	p50, p99 time.Duration
	rate     float64       // calls per second
	cpu      time.Duration // the server's CPU per call; 0 when not printed
}

// httpResults are httpbench's results by number of sessions and side.
type httpResults map[int]map[string]httpResult

// parseHTTP reads httpbench's summary lines:
//
//	httpbench: sessions=50 side=agent p50=62.6ms p99=315.65ms calls/s=612 cpu/call: …
func parseHTTP(out []byte) (httpResults, error) {
	r := httpResults{}
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(line, "httpbench: ")
		if !ok {
			continue
		}
		kv := map[string]string{}
		for _, f := range strings.Fields(rest) {
			if k, v, ok := strings.Cut(f, "="); ok {
				kv[k] = v
			}
		}
		n, err1 := strconv.Atoi(kv["sessions"])
		p50, err2 := time.ParseDuration(kv["p50"])
		p99, err3 := time.ParseDuration(kv["p99"])
		rate, err4 := strconv.ParseFloat(kv["calls/s"], 64)
		if kv["side"] == "" || err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return nil, fmt.Errorf("httpbench line %q: want sessions, side, p50, p99 and calls/s", line)
		}
		if r[n] == nil {
			r[n] = map[string]httpResult{}
		}
		cpu, _ := time.ParseDuration(kv["server"]) // cpu/call: server=…
		r[n][kv["side"]] = httpResult{p50, p99, rate, cpu}
	}
	if len(r) == 0 {
		return nil, fmt.Errorf("httpbench printed no result line:\n%s", out)
	}
	return r, nil
}

// peers are the npm proxies httpbench runs beside the agent.
var peers = []string{"mcp-hub-sse", "mcp-proxy-sse", "mcp-proxy-http"}

// httpRows are issue 25's two HTTP rows: the agent's p99 at 50 sessions
// against the best peer's, and its throughput at 1 and 10 sessions
// against mcp-proxy's streamable HTTP.
func httpRows(r httpResults) []row {
	const path = "streamable HTTP, 50 concurrent sessions, proxied `echo`"
	var rows []row
	at50, ok := r[50]["agent"]
	if !ok {
		rows = append(rows, row{path, "p99 vs the best peer", "not measured (no 50-session run)", "≤ best peer", "–"})
	} else {
		var best time.Duration
		var seen []string
		for _, p := range peers {
			if pr, ok := r[50][p]; ok {
				seen = append(seen, fmt.Sprintf("%s %s", p, ms(pr.p99)))
				if best == 0 || pr.p99 < best {
					best = pr.p99
				}
			}
		}
		if best == 0 {
			rows = append(rows, row{path, "p99 vs the best peer", "agent " + ms(at50.p99) + "; no peer measured", "≤ best peer", "–"})
		} else {
			rows = append(rows, row{path, "p99 vs the best peer (mcp-hub SSE, mcp-proxy SSE and HTTP)",
				fmt.Sprintf("agent %s; %s (%.2f× the best)", ms(at50.p99), strings.Join(seen, ", "), float64(at50.p99)/float64(best)),
				"≤ best peer", holds(at50.p99 <= best)})
		}
	}
	var cells []string
	all := true
	for _, n := range []int{1, 10} {
		a, ok1 := r[n]["agent"]
		p, ok2 := r[n]["mcp-proxy-http"]
		if !ok1 || !ok2 || p.rate == 0 {
			cells = append(cells, fmt.Sprintf("%d: not measured", n))
			all = false
			continue
		}
		ratio := a.rate / p.rate
		cells = append(cells, fmt.Sprintf("%d: %.1f× (%.0f vs %.0f calls/s)", n, ratio, a.rate, p.rate))
		all = all && ratio >= 2
	}
	rows = append(rows, row{"same, 1 and 10 sessions", "throughput vs npm mcp-proxy (HTTP)", strings.Join(cells, "; "), "≥ 2× at every N", holds(all)})
	return rows
}

// revisionRow compares, at 1 and 10 sessions, the same agent called by
// 2026-07-28 hosts (side agent26) and by 2025-11-25 hosts (side agent):
// a host of the newer revision should cost no more (issue 22).
func revisionRow(r httpResults) row {
	const path = "streamable HTTP, 2026-07-28 host vs 2025-11-25 host, proxied `echo`"
	var cells []string
	all := true
	for _, n := range []int{1, 10} {
		a, ok1 := r[n]["agent"]
		b, ok2 := r[n]["agent26"]
		if !ok1 || !ok2 || a.rate == 0 {
			cells = append(cells, fmt.Sprintf("%d: not measured", n))
			all = false
			continue
		}
		ratio := b.rate / a.rate
		cell := fmt.Sprintf("%d: %.2f× (%.0f vs %.0f calls/s)", n, ratio, b.rate, a.rate)
		if a.cpu > 0 && b.cpu > 0 {
			cell += fmt.Sprintf(", agent CPU/call %s vs %s", b.cpu, a.cpu)
		}
		cells = append(cells, cell)
		all = all && ratio >= 0.95
	}
	return row{path, "throughput, 2026 ÷ 2025 (1 and 10 sessions)", strings.Join(cells, "; "), "≥ 0.95× at every N (no slower, within noise)", holds(all)}
}

// httpFailed are the two HTTP rows when httpbench could not run.
func httpFailed(err error) []row {
	why := "not measured: httpbench failed (" + strings.SplitN(err.Error(), "\n", 2)[0] + ")"
	return []row{
		{"streamable HTTP, 50 concurrent sessions, proxied `echo`", "p99 vs the best peer", why, "≤ best peer", "–"},
		{"same, 1 and 10 sessions", "throughput vs npm mcp-proxy (HTTP)", why, "≥ 2× at every N", "–"},
	}
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + " ms"
}
