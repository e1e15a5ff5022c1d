// Command benchtable prints issue 25's table of hot paths, each row with
// what this run measured and its ratio to the floor measured in the same
// run: the in-process call against the clock reads it cannot avoid,
// tool_find on both query sets (synthetic and the shared toolret
// requests) over a plain and an enriched 10k catalog, and the served path
// (scripts/servedbench) against a bare relay, and HTTP at 1, 10 and 50
// sessions against the npm peers (scripts/httpbench). `make bench` runs it; the
// machine's load moves absolute figures, so read the ratios.
//
//	go run ./scripts/benchtable [-count 3] [-rounds 10] [-calls 200] [-http-rounds 4] [-http-calls 300]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	count := flag.Int("count", 3, "runs of each in-process benchmark (medians are shown)")
	rounds := flag.Int("rounds", 10, "servedbench's alternating rounds (even: each side runs first as often as last); more, short rounds keep one slow stretch of the machine from deciding a median")
	calls := flag.Int("calls", 200, "servedbench's calls per side per round")
	httpRounds := flag.Int("http-rounds", 4, "httpbench's alternating rounds (even: each side runs first as often as last)")
	httpCalls := flag.Int("http-calls", 300, "httpbench's calls per side per round, shared out among the sessions")
	flag.Parse()
	if err := run(*count, *rounds, *calls, *httpRounds, *httpCalls); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// row is one line of the table.
type row struct{ path, measure, now, goal, holds string }

func run(count, rounds, calls, httpRounds, httpCalls int) error {
	var rows []row

	// In-process call: Session.Call beside the two clock reads it makes.
	res, err := goBench("./runtime", "^(BenchmarkSessionCall|BenchmarkClockReads)$", "200000x", count)
	if err != nil {
		return err
	}
	call, clock := res.median("BenchmarkSessionCall", "ns/op"), res.median("BenchmarkClockReads", "ns/op")
	allocs := res.median("BenchmarkSessionCall", "allocs/op")
	rows = append(rows, row{"`Session.Call`, in-process tool", "ns/op, allocs (÷ its 2 clock reads)",
		fmt.Sprintf("%.0f ns, %.0f allocs (%.2f× the clock reads' %.0f ns)", call, allocs, call/clock, clock),
		"≤ 100 ns, 0 allocs", holds(call <= 100 && allocs == 0)})

	// tool_find at 10k tools.
	res, err = goBench("./runtime", "^BenchmarkToolFind10k$", "600x", count)
	if err != nil {
		return err
	}
	for _, set := range []string{"synthetic", "toolret"} {
		plain := res.median("BenchmarkToolFind10k/queries="+set+"/enriched=false", "p50-ns")
		enriched := res.median("BenchmarkToolFind10k/queries="+set+"/enriched=true", "p50-ns")
		if plain == 0 && enriched == 0 {
			rows = append(rows, row{"`tool_find` at 10k tools, " + set + " queries", "p50 plain / enriched", "not measured (no data set)", "≤ 50 µs enriched", "–"})
			continue
		}
		mean := res.median("BenchmarkToolFind10k/queries="+set+"/enriched=false", "ns/op")
		rows = append(rows, row{"`tool_find` at 10k tools, " + set + " queries", "p50 plain / enriched (mean plain)",
			fmt.Sprintf("%.1f / %.1f µs (%.1f µs)", plain/1e3, enriched/1e3, mean/1e3), "≤ 50 µs enriched", holds(enriched <= 50e3)})
	}

	// The served path against the bare relay, in the same run.
	out, err := command("go", "run", "./scripts/servedbench", "-rounds", strconv.Itoa(rounds), "-calls", strconv.Itoa(calls))
	if err != nil {
		return err
	}
	os.Stdout.Write(out)
	sv, err := servedRatios(out)
	if err != nil {
		return err
	}
	rows = append(rows,
		row{"host → agent → server-everything `echo`, stdio", "agent latency ÷ bare relay's (medians)", fmt.Sprintf("%.2f", sv.latency), "≤ 1.15", holds(sv.latency <= 1.15)},
		row{"same", "agent CPU per call ÷ relay's", fmt.Sprintf("%.2f×", sv.cpu), "≤ 1.5×", holds(sv.cpu <= 1.5)},
	)
	if sv.one != 0 {
		rows = append(rows, row{"same", "agent latency, CPU ÷ a relay with the agent's own I/O (relay1)",
			fmt.Sprintf("%.2f, %.2f×", sv.one, sv.oneCPU), "– (the agent's own work)", "–"})
	}
	if sv.rev != 0 {
		rows = append(rows, row{"same, a 2026-07-28 host (issue 22)", "latency, agent CPU ÷ a 2025-11-25 host's",
			fmt.Sprintf("%.2f, %.2f×", sv.rev, sv.revCPU), "≤ 1 (no slower)", holds(sv.rev <= 1)})
	}
	if sv.raw != 0 {
		rows = append(rows, row{"same, both hosts' lines from a raw host (no client library)", "latency, agent CPU: 2026-07-28 ÷ 2025-11-25",
			fmt.Sprintf("%.2f, %.2f×", sv.raw, sv.rawCPU), "≤ 1 (no slower)", holds(sv.raw <= 1)})
	}
	// HTTP under concurrency against the npm peers (scripts/httpbench).
	// It needs three more npm programs than the rows above: when it fails,
	// its rows say so and the table is still printed.
	out, err = command("go", "run", "./scripts/httpbench", "-sessions", "1,10,50", "-rounds", strconv.Itoa(httpRounds), "-calls", strconv.Itoa(httpCalls))
	os.Stdout.Write(out)
	var hr httpResults
	if err == nil {
		hr, err = parseHTTP(out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		rows = append(rows, httpFailed(err)...)
	} else {
		rows = append(rows, httpRows(hr)...)
		rows = append(rows, revisionRow(hr))
	}

	fmt.Println()
	fmt.Println("| path | measure | this run | goal | holds |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.path, r.measure, r.now, r.goal, r.holds)
	}
	fmt.Println("\nMeasured on this machine now; under load compare the ratios, not the absolute figures.")
	return nil
}

func holds(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// results are a benchmark run's values by benchmark name (without the
// -GOMAXPROCS suffix) and unit, one per run.
type results map[string]map[string][]float64

func (r results) median(name, unit string) float64 {
	v := slices.Clone(r[name][unit])
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// goBench runs the benchmarks of pkg matching re and parses their lines.
func goBench(pkg, re, benchtime string, count int) (results, error) {
	out, err := command("go", "test", "-run", "^$", "-bench", re, "-benchmem", "-benchtime", benchtime, "-count", strconv.Itoa(count), pkg)
	if err != nil {
		return nil, err
	}
	return parse(out), nil
}

// parse reads benchmark lines: name, iterations, then value-unit pairs.
func parse(out []byte) results {
	r := results{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := procsSuffix.ReplaceAllString(f[0], "")
		if r[name] == nil {
			r[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				r[name][f[i+1]] = append(r[name][f[i+1]], v)
			}
		}
	}
	return r
}

// cpuSide is one side's part of servedbench's CPU line: its name and the
// middle process's CPU per call (the relay's or the agent's).
var cpuSide = regexp.MustCompile(`(\w+): host \S+, (?:relay|agent) (\S+?),`)

// served is what scripts/benchtable reads from servedbench's output.
type served struct {
	latency, cpu float64 // the agent's (2025-11-25 host) median latency and CPU per call ÷ the relay's
	rev, revCPU  float64 // a 2026-07-28 host's median latency and agent CPU ÷ a 2025-11-25 host's; 0 when not printed
	raw, rawCPU  float64 // the same from the raw host (raw26 ÷ raw25); 0 when not printed
	one, oneCPU  float64 // the agent's (2025-11-25 host) ÷ the relay with its own I/O (relay1); 0 when not printed
}

// servedRatios reads servedbench's output: the median row's columns by
// the header's names, and the CPU line's sides by theirs.
func servedRatios(out []byte) (served, error) {
	var s served
	var header []string
	var med map[string]float64
	cpu := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "round":
			header = f
		case len(f) > 0 && f[0] == "median" && len(f) == len(header):
			med = map[string]float64{}
			for i, name := range header[1:] {
				med[name] = parseMedian(f[i+1])
			}
		}
		if strings.HasPrefix(line, "CPU per call:") {
			for _, m := range cpuSide.FindAllStringSubmatch(line, -1) {
				d, err := parseDuration(m[2])
				if err != nil {
					return s, fmt.Errorf("servedbench CPU line: %s %q", m[1], m[2])
				}
				cpu[m[1]] = d
			}
		}
	}
	if med["relay"] == 0 || med["agent"] == 0 || cpu["relay"] == 0 || cpu["agent"] == 0 {
		return s, fmt.Errorf("servedbench printed no median row or CPU line:\n%s", out)
	}
	// ratio is a ÷ b by median latency and by CPU, or zeros when either
	// side was not printed.
	ratio := func(a, b string) (float64, float64) {
		if med[a] == 0 || med[b] == 0 || cpu[a] == 0 || cpu[b] == 0 {
			return 0, 0
		}
		return med[a] / med[b], cpu[a] / cpu[b]
	}
	s.latency, s.cpu = ratio("agent", "relay")
	s.rev, s.revCPU = ratio("agent26", "agent")
	s.raw, s.rawCPU = ratio("raw26", "raw25")
	s.one, s.oneCPU = ratio("agent", "relay1")
	return s, nil
}

// parseMedian reads a median cell: a duration (740µs) or a ratio (1.38x).
func parseMedian(cell string) float64 {
	if v, err := strconv.ParseFloat(strings.TrimSuffix(cell, "x"), 64); err == nil {
		return v
	}
	v, _ := parseDuration(cell)
	return v
}

func parseDuration(s string) (float64, error) {
	d, err := time.ParseDuration(s)
	return float64(d.Nanoseconds()) / 1e3, err
}

// command runs a go command from the module root, its stderr passed on.
func command(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return out, nil
}
