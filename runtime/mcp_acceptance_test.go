package runtime

// Acceptance tests of MCP serving and connections with real stdio servers
// (testdata/mcpservers/hang, built here): a server killed mid-call, and
// agents switched hundreds of times.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Killing one upstream server mid-call gives an error result and a
// server.fail event while the other servers keep answering; the dead one
// shows not green, and comes back once it can be started again.
func TestAcceptanceKillUpstreamMidCall(t *testing.T) {
	bin := buildAcceptanceFixture(t)
	// alpha runs from its own copy so that the test can take the command
	// away: its reconnects then fail and its health stays red for as long
	// as the test looks at it.
	alphaBin := filepath.Join(t.TempDir(), "alpha")
	copyExecutable(t, bin, alphaBin)

	rec := &accRecorder{}
	logger := slog.New(rec)
	m := mcpconn.NewManager(logger)
	defer m.Close()
	reg := &Registry{
		Package: "p", Separator: "__",
		// A tool timeout far beyond the test's patience: the in-flight call
		// must end because its server died, not because it timed out.
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Minute, StartupTimeout: 20 * time.Second, InitConcurrency: 2, MaxDepth: 1},
		Servers: []decl.Server{
			{Name: "alpha", Transport: "stdio", Command: alphaBin, Trusted: true},
			{Name: "beta", Transport: "stdio", Command: bin, Trusted: true},
		},
		Agents: []decl.Agent{{Name: "both", Use: []decl.Use{{Kind: decl.UseServer, Name: "alpha"}, {Kind: decl.UseServer, Name: "beta"}}}},
	}
	ctx := context.Background()
	s, err := Open(ctx, reg, "both", Options{Logger: logger, Connector: mcpConnector{m: m}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	requireHealth(t, s, map[string]Health{"alpha": HealthGreen, "beta": HealthGreen})

	alphaPID := pidVia(t, s, "alpha__pid")
	betaPID := pidVia(t, s, "beta__pid")
	if pp := parentOf(alphaPID); pp != os.Getpid() {
		t.Fatalf("alpha (pid %d) has parent %d, want this test process %d", alphaPID, pp, os.Getpid())
	}

	inflight := make(chan Result, 1)
	go func() { inflight <- s.Call(ctx, "alpha__hang", []byte(`{"mark":"m1"}`)) }()
	// beta has a call in flight too, which alpha's death must not touch.
	betaCtx, betaCancel := context.WithCancel(ctx)
	defer betaCancel()
	betaInflight := make(chan Result, 1)
	go func() { betaInflight <- s.Call(betaCtx, "beta__hang", []byte(`{"mark":"m2"}`)) }()
	rec.wait(t, "server.stderr", "server", "alpha", "line", "hang: hanging m1") // the calls reached their servers
	rec.wait(t, "server.stderr", "server", "beta", "line", "hang: hanging m2")

	if err := os.Remove(alphaBin); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(alphaPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	var r Result
	select {
	case r = <-inflight:
	case <-time.After(2 * time.Minute): // a hang guard, far below the 10-minute tool timeout
		t.Fatal("the call in flight on alpha did not return after alpha was killed")
	}
	if r.OK || r.Error == "" || r.Result != "" {
		t.Fatalf("in-flight call on the killed server = %+v, want an error result", r)
	}
	if !strings.Contains(r.Error, `"alpha"`) || strings.Contains(r.Error, "timeout") {
		t.Errorf("in-flight call error %q should name alpha and not be a timeout", r.Error)
	}
	t.Logf("in-flight call: %s", r.Error)
	fail := rec.wait(t, EventServerFail, "server", "alpha", "reconnecting", "true")
	if !strings.Contains(fail.attrs["reason"], "signal: killed") {
		t.Errorf("server.fail reason %q does not say the process was killed", fail.attrs["reason"])
	}
	if got := rec.find(EventServerFail, "server", "beta"); len(got) > 0 {
		t.Errorf("server.fail for beta, which was not touched: %v", got)
	}
	rec.wait(t, "tool.call", "tool", "alpha__hang", "status", "failed")

	// beta keeps answering, on the same process, again and again.
	for i := range 20 {
		want := fmt.Sprintf("beta still here %d", i)
		if r := s.Call(ctx, "beta__echo", []byte(fmt.Sprintf(`{"text":%q}`, want))); !r.OK || r.Result != want {
			t.Fatalf("beta__echo after alpha died = %+v", r)
		}
	}
	if p := pidVia(t, s, "beta__pid"); p != betaPID {
		t.Errorf("beta's pid changed from %d to %d: it was restarted", betaPID, p)
	}
	select {
	case r := <-betaInflight:
		t.Fatalf("beta's call in flight ended when alpha died: %+v", r)
	default:
	}
	betaCancel() // it was still running: its own cancellation ends it
	if r := <-betaInflight; r.OK || !strings.Contains(r.Error, "canceled") {
		t.Errorf("cancelled beta__hang = %+v, want a cancellation error", r)
	}
	// alpha cannot come back (its command is gone): a call to it fails at
	// once, and the session reports it red while beta stays green.
	rec.wait(t, EventServerFail, "server", "alpha", "attempt", "1")
	if r := s.Call(ctx, "alpha__echo", []byte(`{"text":"x"}`)); r.OK || !strings.Contains(r.Error, "unavailable") {
		t.Errorf("alpha__echo while alpha is down = %+v, want an unavailable error", r)
	}
	requireHealth(t, s, map[string]Health{"alpha": HealthRed, "beta": HealthGreen})
	for _, ss := range s.Servers() {
		if ss.Name == "alpha" && ss.Error == "" {
			t.Errorf("Servers(): alpha is red without a reason: %+v", ss)
		}
		if ss.Name == "beta" && ss.Error != "" {
			t.Errorf("Servers(): beta is green with an error: %+v", ss)
		}
	}
	if procAlive(alphaPID) {
		t.Errorf("killed alpha (pid %d) is still a live process or an unreaped zombie", alphaPID)
	}

	// Its command back, alpha reconnects by itself, as a new process.
	copyExecutable(t, bin, alphaBin)
	accEventually(t, "alpha reconnects", func() bool {
		r := s.Call(ctx, "alpha__echo", []byte(`{"text":"back"}`))
		return r.OK && r.Result == "back"
	})
	requireHealth(t, s, map[string]Health{"alpha": HealthGreen, "beta": HealthGreen})
	if p := pidVia(t, s, "alpha__pid"); p == alphaPID {
		t.Errorf("alpha answers from the pid that was killed (%d)", p)
	}
	if r := s.Call(ctx, "beta__echo", []byte(`{"text":"last"}`)); !r.OK || r.Result != "last" {
		t.Errorf("beta__echo at the end = %+v", r)
	}
}

// The same through an agent binary served over stdio
// (testdata/mcpservers/hangagent): an MCP client's call in flight on alpha
// gets an error result when alpha is killed, the binary logs server.fail
// for alpha, and beta keeps answering; when the client leaves, every
// process below the test is gone.
func TestAcceptanceAgentBinaryKillUpstream(t *testing.T) {
	hang := buildAcceptanceFixture(t)
	agentBin := filepath.Join(t.TempDir(), "hangagent")
	if out, err := exec.Command("go", "build", "-o", agentBin, "../testdata/mcpservers/hangagent").CombinedOutput(); err != nil {
		t.Fatalf("building the hangagent binary: %v\n%s", err, out)
	}
	alphaBin := filepath.Join(t.TempDir(), "alpha")
	copyExecutable(t, hang, alphaBin)
	before := descendants()

	ctx := context.Background()
	cmd := exec.Command(agentBin, "serve", "--stdio", "--agent", "both")
	cmd.Env = append(os.Environ(), "HANGAGENT_ALPHA="+alphaBin, "HANGAGENT_BETA="+hang, "TOOLGEN_LOG=debug")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "acceptance", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	closed := false
	defer func() {
		if !closed {
			cs.Close()
		}
	}()
	call := func(name, args string) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("tools/call %s: protocol error %v\nstderr:\n%s", name, err, stderr)
		}
		var sb strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				sb.WriteString(tc.Text)
			}
		}
		return sb.String(), res.IsError
	}
	pid := func(name string) int {
		t.Helper()
		text, isErr := call(name, `{}`)
		p, err := strconv.Atoi(text)
		if isErr || err != nil {
			t.Fatalf("%s = %q (error %v)", name, text, isErr)
		}
		return p
	}
	alphaPID, betaPID := pid("alpha__pid"), pid("beta__pid")
	if pp := parentOf(alphaPID); pp != cmd.Process.Pid {
		t.Fatalf("alpha (pid %d) has parent %d, want the agent binary %d", alphaPID, pp, cmd.Process.Pid)
	}

	type outcome struct {
		text  string
		isErr bool
		err   error
	}
	inflight := make(chan outcome, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__hang", Arguments: json.RawMessage(`{"mark":"b1"}`)})
		o := outcome{err: err}
		if err == nil {
			o.isErr = res.IsError
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					o.text += tc.Text
				}
			}
		}
		inflight <- o
	}()
	accEventually(t, "the hang call reaches alpha", func() bool { return strings.Contains(stderr.String(), "hanging b1") })
	if err := os.Remove(alphaBin); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(alphaPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var o outcome
	select {
	case o = <-inflight:
	case <-time.After(2 * time.Minute): // a hang guard, far below the 10-minute tool timeout
		t.Fatalf("the call in flight on alpha did not return after alpha was killed\nstderr:\n%s", stderr)
	}
	if o.err != nil || !o.isErr || !strings.Contains(o.text, `"alpha"`) || strings.Contains(o.text, "timeout") {
		t.Fatalf("in-flight call on the killed server = %+v, want an error result naming alpha", o)
	}
	accEventually(t, "server.fail for alpha in the binary's log", func() bool {
		return logHas(stderr.String(), "msg=server.fail ", "server=alpha ", "signal: killed")
	})
	for i := range 20 {
		want := fmt.Sprintf("beta still here %d", i)
		if text, isErr := call("beta__echo", fmt.Sprintf(`{"text":%q}`, want)); isErr || text != want {
			t.Fatalf("beta__echo after alpha died = %q (error %v)", text, isErr)
		}
	}
	if p := pid("beta__pid"); p != betaPID {
		t.Errorf("beta's pid changed from %d to %d: it was restarted", betaPID, p)
	}
	if text, isErr := call("alpha__echo", `{"text":"x"}`); !isErr || !strings.Contains(text, "unavailable") {
		t.Errorf("alpha__echo while alpha is down = %q (error %v), want an unavailable error", text, isErr)
	}
	if logHas(stderr.String(), "msg=server.fail ", "server=beta ") {
		t.Errorf("server.fail for beta, which was not touched:\n%s", stderr)
	}

	// The client leaves: the binary exits and takes beta with it.
	closed = true
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	accEventually(t, "every process reaped", func() bool { return len(newSince(before)) == 0 })
}

// logHas reports whether one line of a text log holds every part.
func logHas(log string, parts ...string) bool {
	return slices.ContainsFunc(strings.Split(log, "\n"), func(line string) bool {
		for _, p := range parts {
			if !strings.Contains(line, p) {
				return false
			}
		}
		return true
	})
}

// syncBuffer is an io.Writer a process's stderr can be copied into while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// After 200 Switch calls between agents with stdio servers, no child
// process or goroutine is left. Connections come from the session's own
// Host, which stays up until Close: Switch alone must stop the old agent's
// servers, checked at every switch.
func TestAcceptanceSwitchLeavesNothing(t *testing.T) {
	const switches = 200
	bin := buildAcceptanceFixture(t)
	leakOpt := goleak.IgnoreCurrent()
	before := descendants()

	rec := &accRecorder{}
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: time.Minute, StartupTimeout: 20 * time.Second, InitConcurrency: 2, MaxDepth: 1},
		Servers: []decl.Server{
			{Name: "one", Transport: "stdio", Command: bin, Trusted: true},
			{Name: "two", Transport: "stdio", Command: bin, Trusted: true},
		},
		Agents: []decl.Agent{
			{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "one"}}},
			{Name: "b", Use: []decl.Use{{Kind: decl.UseServer, Name: "two"}}},
		},
	}
	ctx := context.Background()
	start := time.Now()
	s, err := Open(ctx, reg, "a", Options{Logger: slog.New(rec)})
	if err != nil {
		t.Fatal(err)
	}
	server := map[string]string{"a": "one", "b": "two"}
	prev := pidVia(t, s, "one__pid")
	requireOnlyNew(t, before, prev)
	killed := 0
	for i := range switches {
		agent := "b"
		if i%2 == 1 {
			agent = "a"
		}
		// Now and then the current server dies first, so that teardown also
		// meets a connection that is down: just killed, waiting to
		// reconnect, or back up on a process of its reconnect's making.
		if i%25 == 7 {
			cur := server[s.Agent()]
			killed++
			if err := syscall.Kill(prev, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			switch i % 3 {
			case 1:
				accEventually(t, cur+" seen down", func() bool { return healthOf(s, cur) != HealthGreen })
			case 2:
				accEventually(t, cur+" reconnected", func() bool {
					r := s.Call(ctx, cur+"__pid", []byte(`{}`))
					return r.OK && r.Result != strconv.Itoa(prev) && healthOf(s, cur) == HealthGreen
				})
			}
		}
		if err := s.Switch(ctx, agent); err != nil {
			t.Fatalf("switch %d to %s: %v", i, agent, err)
		}
		srv := server[agent]
		want := fmt.Sprintf("switch %d", i)
		if r := s.Call(ctx, srv+"__echo", []byte(fmt.Sprintf(`{"text":%q}`, want))); !r.OK || r.Result != want {
			t.Fatalf("switch %d: %s__echo = %+v", i, srv, r)
		}
		// The old agent's server was stopped and reaped before Switch
		// returned; the new one is a fresh process and the only one left.
		pid := pidVia(t, s, srv+"__pid")
		if pid == prev {
			t.Fatalf("switch %d: %s answers from the previous agent's process %d", i, srv, pid)
		}
		requireOnlyNew(t, before, pid)
		prev = pid
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d switches (%d killed first) and Close in %s", switches, killed, time.Since(start).Round(time.Millisecond))

	if n := len(rec.find(EventAgentBuild)); n != switches+1 {
		t.Errorf("%d agent.build events, want %d", n, switches+1)
	}
	if n := len(rec.find(EventAgentTeardown, "forced", "false")); n != switches+1 {
		t.Errorf("%d unforced agent.teardown events, want %d", n, switches+1)
	}
	if got := rec.find(EventAgentSwitchTimeout); len(got) > 0 {
		t.Errorf("switch timeouts: %v", got)
	}
	accEventually(t, "every server process reaped", func() bool { return len(newSince(before)) == 0 })
	goleak.VerifyNone(t, leakOpt)
}

// buildAcceptanceFixture builds testdata/mcpservers/hang.
func buildAcceptanceFixture(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hang")
	if out, err := exec.Command("go", "build", "-o", bin, "../testdata/mcpservers/hang").CombinedOutput(); err != nil {
		t.Fatalf("building the hang fixture: %v\n%s", err, out)
	}
	return bin
}

// copyExecutable puts a copy of src at dst by rename, so that a reconnect
// racing with it never executes a half-written file.
func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

func pidVia(t *testing.T, s *Session, tool string) int {
	t.Helper()
	r := s.Call(context.Background(), tool, []byte(`{}`))
	if !r.OK {
		t.Fatalf("%s = %+v", tool, r)
	}
	pid, err := strconv.Atoi(r.Result)
	if err != nil {
		t.Fatalf("%s = %q: %v", tool, r.Result, err)
	}
	return pid
}

func healthOf(s *Session, server string) Health {
	for _, ss := range s.Servers() {
		if ss.Name == server {
			return ss.Health
		}
	}
	return ""
}

func requireHealth(t *testing.T, s *Session, want map[string]Health) {
	t.Helper()
	got := map[string]Health{}
	for _, ss := range s.Servers() {
		got[ss.Name] = ss.Health
	}
	for name, h := range want {
		if got[name] != h {
			t.Errorf("Servers(): %s is %q, want %q (all: %+v)", name, got[name], h, s.Servers())
		}
	}
}

// requireOnlyNew fails unless pid is the one process descended from this
// test process that was not there before.
func requireOnlyNew(t *testing.T, before map[int]bool, pid int) {
	t.Helper()
	if got := newSince(before); len(got) != 1 || got[0] != pid {
		t.Fatalf("processes started by the test and still there: %v, want only %d", got, pid)
	}
}

func newSince(before map[int]bool) []int {
	var out []int
	for pid := range descendants() {
		if !before[pid] {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// procStat is the state and parent of a process from /proc/PID/stat.
func procStat(pid string) (state string, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "", 0, false
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return "", 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return f[0], ppid, err == nil
}

func parentOf(pid int) int {
	_, ppid, _ := procStat(strconv.Itoa(pid))
	return ppid
}

// procAlive: the process exists, running or as a zombie nobody reaped.
func procAlive(pid int) bool {
	_, _, ok := procStat(strconv.Itoa(pid))
	return ok
}

// descendants is every process below this one (children, grandchildren…),
// zombies included: an unreaped child is a leak too.
func descendants() map[int]bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	children := map[int][]int{}
	for _, d := range dirs {
		name := filepath.Base(d)
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if _, ppid, ok := procStat(name); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := map[int]bool{}
	queue := []int{os.Getpid()}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !out[c] {
				out[c] = true
				queue = append(queue, c)
			}
		}
	}
	return out
}

// accEventually polls cond until it holds, failing after a minute.
func accEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not the case after a minute", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// accRecorder is a slog handler that keeps every record with its
// attributes, those added by Logger.With included (mcpconn names its
// server that way).
type accRecorder struct {
	mu   sync.Mutex
	recs []accEvent
}

type accEvent struct {
	name  string
	attrs map[string]string
}

type accHandler struct {
	r     *accRecorder
	attrs []slog.Attr
}

func (r *accRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *accRecorder) Handle(ctx context.Context, rec slog.Record) error {
	return accHandler{r: r}.Handle(ctx, rec)
}
func (r *accRecorder) WithAttrs(as []slog.Attr) slog.Handler { return accHandler{r: r, attrs: as} }
func (r *accRecorder) WithGroup(string) slog.Handler         { return r }

func (h accHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h accHandler) Handle(_ context.Context, rec slog.Record) error {
	ev := accEvent{name: rec.Message, attrs: map[string]string{}}
	for _, a := range h.attrs {
		ev.attrs[a.Key] = a.Value.String()
	}
	rec.Attrs(func(a slog.Attr) bool { ev.attrs[a.Key] = a.Value.String(); return true })
	h.r.mu.Lock()
	h.r.recs = append(h.r.recs, ev)
	h.r.mu.Unlock()
	return nil
}
func (h accHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return accHandler{r: h.r, attrs: append(slices.Clip(h.attrs), as...)}
}
func (h accHandler) WithGroup(string) slog.Handler { return h }

// find returns the events with a name whose attributes hold the given
// key/value pairs.
func (r *accRecorder) find(name string, kv ...string) []accEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []accEvent
next:
	for _, ev := range r.recs {
		if ev.name != name {
			continue
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if ev.attrs[kv[i]] != kv[i+1] {
				continue next
			}
		}
		out = append(out, ev)
	}
	return out
}

// wait polls for an event, failing after a minute with every event seen.
func (r *accRecorder) wait(t *testing.T, name string, kv ...string) accEvent {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if got := r.find(name, kv...); len(got) > 0 {
			return got[0]
		}
		if time.Now().After(deadline) {
			r.mu.Lock()
			var all []string
			for _, ev := range r.recs {
				all = append(all, fmt.Sprintf("%s %v", ev.name, ev.attrs))
			}
			r.mu.Unlock()
			t.Fatalf("no %s event with %v after a minute; events:\n%s", name, kv, strings.Join(all, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
