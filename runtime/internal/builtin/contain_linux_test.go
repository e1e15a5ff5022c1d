package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if kind := os.Getenv("TOOLGEN_TEST_AGENT"); kind != "" {
		os.Exit(runTestAgent(kind, strings.Split(os.Getenv("TOOLGEN_TEST_MARKERS"), ",")))
	}
	os.Exit(m.Run())
}

type forcedContainment struct {
	label string
	c     containment
}

// forcedContainments lists every containment this machine allows, to force each on a Shell in
// turn. subreaper comes last: it makes the test process a subreaper for good.
func forcedContainments(t testing.TB) []forcedContainment {
	t.Helper()
	var out []forcedContainment
	add := func(label string, c containment, err error) {
		if err != nil {
			t.Logf("%s is not available here: %v", label, err)
			return
		}
		out = append(out, forcedContainment{label, c})
	}
	c1, err := newCgroupContainment()
	add("cgroup2", c1, err)
	c2, err := newPidnsContainment(false)
	add("pidns", c2, err)
	c3, err := newPidnsContainment(true)
	add("pidns+userns", c3, err)
	c4, err := newSubreaperContainment()
	add("subreaper", c4, err)
	return out
}

func containmentNamed(label string) (containment, error) {
	switch label {
	case "cgroup2":
		return newCgroupContainment()
	case "pidns":
		return newPidnsContainment(false)
	case "pidns+userns":
		return newPidnsContainment(true)
	case "subreaper":
		return newSubreaperContainment()
	case "pgroup":
		return pgroupContainment{}, nil
	}
	return nil, fmt.Errorf("no containment %q", label)
}

func TestContainmentIsDetected(t *testing.T) {
	got := Containment()
	if !slices.Contains([]string{"cgroup2", "pidns", "subreaper"}, got) {
		t.Fatalf("Containment() = %q", got)
	}
	t.Logf("shell_exec containment in force here: %s", got)
}

var markerSeq atomic.Int64

// newMarker returns a sleep duration of about 300 s that no other process has on its command
// line, and kills whatever process carries it when the test ends, pass or fail.
func newMarker(t *testing.T) string {
	m := fmt.Sprintf("300.%d%05d", os.Getpid(), markerSeq.Add(1))
	t.Cleanup(func() {
		for range 100 {
			procs := markedProcs(m)
			if len(procs) == 0 {
				return
			}
			for _, p := range procs {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("could not kill the processes marked %s", m)
	})
	return m
}

type markedProc struct {
	pid  int
	argv []string
}

func (p markedProc) String() string { return fmt.Sprintf("%d %q", p.pid, p.argv) }

// markedProcs lists the live processes with marker as one of their arguments. A process that
// has exited has no command line any more, so zombies are not listed.
func markedProcs(marker string) []markedProc {
	var out []markedProc
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		if slices.Contains(argv, marker) {
			out = append(out, markedProc{pid, argv})
		}
	}
	return out
}

// callWithin fails the test instead of hanging when a call outlives its kill by far.
func callWithin(t *testing.T, s *Shell, ctx context.Context, args string) (string, error) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := s.Call(ctx, json.RawMessage(args))
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-time.After(60 * time.Second):
		t.Fatal("shell_exec did not return: the command's processes were not killed")
		return "", nil
	}
}

func shellCall(command string, args ...string) string {
	b, _ := json.Marshal(map[string]any{"command": command, "args": args})
	return string(b)
}

// No process a command starts outlives its call, whatever session or process group it moves
// to, under every containment this machine allows: when the call times out, is cancelled, or
// the command exits and leaves processes behind.
func TestShellNoDescendantOutlivesCall(t *testing.T) {
	for _, name := range []string{"sh", "bash", "setsid", "sleep"} {
		if _, err := exec.LookPath(name); err != nil {
			t.Skip(err)
		}
	}
	flag := filepath.Join(t.TempDir(), "started")
	cases := []struct {
		name    string
		args    func(m string) string
		timeout bool // the call ends by its timeout rather than by the command's exit
		cancel  bool // the call ends by its context's cancellation
	}{
		{"setsid in the background", func(m string) string { return shellCall("sh", "-c", "setsid sleep "+m+" & sleep 100") }, true, false},
		{"job control makes a new group", func(m string) string { return shellCall("bash", "-c", "set -m; sleep "+m+" & sleep 100") }, true, false},
		{"setsid as the command", func(m string) string { return shellCall("setsid", "sleep", m) }, false, false},
		{"left behind at exit", func(m string) string {
			f := flag + m
			return shellCall("sh", "-c", "setsid sh -c 'touch "+f+"; exec sleep "+m+"' >/dev/null 2>&1 & while [ ! -e "+f+" ]; do sleep 0.01; done")
		}, false, false},
		{"double fork", func(m string) string { return shellCall("sh", "-c", "(setsid sleep "+m+" &); sleep 100") }, true, false},
		{"many escapes", func(m string) string {
			return shellCall("sh", "-c", "i=0; while [ $i -lt 30 ]; do setsid sleep "+m+" & i=$((i+1)); done; sleep 100")
		}, true, false},
		{"cancelled", func(m string) string { return shellCall("sh", "-c", "setsid sleep "+m+" & sleep 100") }, false, true},
	}
	var mu sync.Mutex
	runs, survivors := 0, 0
	for _, fc := range forcedContainments(t) {
		t.Run(fc.label, func(t *testing.T) {
			// All at once, not as parallel tests: -parallel would hold them to GOMAXPROCS, and
			// most of them only sleep until their timeout.
			var wg sync.WaitGroup
			defer wg.Wait()
			for _, c := range cases {
				wg.Go(func() {
					t.Run(c.name, func(t *testing.T) {
						m := newMarker(t)
						timeout := time.Second
						ctx := context.Background()
						if c.cancel {
							timeout = time.Hour
							var cancel context.CancelFunc
							ctx, cancel = context.WithCancel(ctx)
							defer cancel()
							time.AfterFunc(time.Second, cancel)
						}
						s := NewShell([]string{"sh", "bash", "setsid"}, timeout, 0, "")
						s.contain = fc.c
						_, err := callWithin(t, s, ctx, c.args(m))
						switch {
						case c.timeout && (err == nil || !strings.Contains(err.Error(), "timed out after 1s; it and every process it started were killed")):
							t.Errorf("want a timeout, got %v", err)
						case c.cancel && (err == nil || !strings.Contains(err.Error(), "was cancelled (context canceled); it and every process it started were killed")):
							t.Errorf("want a cancellation, got %v", err)
						case !c.timeout && !c.cancel && err != nil:
							t.Errorf("call: %v", err)
						}
						left := markedProcs(m)
						if len(left) > 0 {
							t.Errorf("%d processes outlived the call: %v", len(left), left)
						}
						mu.Lock()
						runs++
						survivors += min(len(left), 1)
						mu.Unlock()
					})
				})
			}
		})
	}
	t.Logf("calls with a survivor: %d/%d", survivors, runs)
}

// Each containment still runs the command where and how it should.
func TestShellUnderEachContainment(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	for _, fc := range forcedContainments(t) {
		t.Run(fc.label, func(t *testing.T) {
			s := NewShell([]string{"pwd", "sh", "cat"}, 0, 0, dir)
			s.contain = fc.c
			if got, err := call(t, s, `{"command":"pwd","cwd":"sub"}`); err != nil || got != filepath.Join(dir, "sub")+"\n" {
				t.Errorf("pwd in sub = %q, %v", got, err)
			}
			if got, err := call(t, s, `{"command":"cat","stdin":"in\n"}`); err != nil || got != "in\n" {
				t.Errorf("cat = %q, %v", got, err)
			}
			_, err := call(t, s, `{"command":"sh","args":["-c","echo out; exit 3"]}`)
			if err == nil || err.Error() != "command \"sh\" exited with status 3\nout\n" {
				t.Errorf("exit 3: %v", err)
			}
		})
	}
}

// An agent killed with SIGKILL cleans nothing up, yet its commands die with it: each gets the
// parent-death signal. Under pidns that ends the whole namespace; under cgroup2 the processes
// the command started remain in its group until the next agent sweeps the groups of dead
// agents; under subreaper they remain (README says so).
func TestShellChildrenDieWithAgent(t *testing.T) {
	for _, fc := range forcedContainments(t) {
		t.Run(fc.label, func(t *testing.T) {
			bg, fg := newMarker(t), newMarker(t)
			agent := exec.Command(os.Args[0], "-test.run=^$")
			agent.Env = append(os.Environ(), "TOOLGEN_TEST_AGENT="+fc.label, "TOOLGEN_TEST_MARKERS="+bg+","+fg)
			agent.Stdout, agent.Stderr = os.Stderr, os.Stderr
			must(t, agent.Start())
			t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })

			// The command is sh, with the two markers as its arguments $1 and $2.
			sleeps := func() (cmd, sleeping []markedProc) {
				for _, p := range append(markedProcs(bg), markedProcs(fg)...) {
					switch {
					case p.argv[0] != "sh":
						sleeping = append(sleeping, p)
					case !slices.ContainsFunc(cmd, func(q markedProc) bool { return q.pid == p.pid }):
						cmd = append(cmd, p)
					}
				}
				return cmd, sleeping
			}
			waitFor(t, "the agent's command to start", func() bool { c, s := sleeps(); return len(c) == 1 && len(s) == 2 })
			agent.Process.Kill()
			agent.Wait()

			waitFor(t, "the command to get its parent-death signal", func() bool { c, _ := sleeps(); return len(c) == 0 })
			switch fc.label {
			case "pidns", "pidns+userns":
				waitFor(t, "the namespace to end", func() bool { _, s := sleeps(); return len(s) == 0 })
			case "cgroup2":
				if _, s := sleeps(); len(s) == 0 {
					t.Fatal("the background processes died without a sweep; the test no longer shows what it means to")
				}
				if _, err := newCgroupContainment(); err != nil { // sweeps the dead agent's groups
					t.Fatal(err)
				}
				if _, s := sleeps(); len(s) > 0 {
					t.Errorf("the sweep left %v", s)
				}
			default:
				_, s := sleeps()
				t.Logf("%s: %d processes the command started outlive the killed agent (documented)", fc.label, len(s))
			}
		})
	}
}

// runTestAgent is the agent that TestShellChildrenDieWithAgent kills: it runs one command that
// starts a process in a session of its own and waits for another, until it is killed.
func runTestAgent(label string, markers []string) int {
	c, err := containmentNamed(label)
	if err != nil || len(markers) != 2 {
		fmt.Fprintln(os.Stderr, "test agent:", err, markers)
		return 2
	}
	s := NewShell([]string{"sh"}, time.Hour, 0, "")
	s.contain = c
	_, err = s.Call(context.Background(), json.RawMessage(shellCall("sh", "-c", `setsid sleep "$1" & sleep "$2"; :`, "sh", markers[0], markers[1])))
	fmt.Fprintln(os.Stderr, "test agent: the call returned:", err)
	return 1
}

// waitFor polls cond for up to 30 s: the events waited for are the kernel's, and come in
// milliseconds; the bound only keeps a failing test from hanging.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestParseStat(t *testing.T) {
	line := "4242 (a) b (c)) S 1 4242 4200 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 18446744073709551615\n"
	got, ok := parseStat(4242, []byte(line))
	want := procStat{pid: 4242, ppid: 1, sid: 4200, state: 'S', start: 987654}
	if !ok || got != want {
		t.Errorf("parseStat = %+v, %v; want %+v", got, ok, want)
	}
	for _, bad := range []string{"", "1 (x", "1 (x) S 1 2", "1 (x) SS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"} {
		if got, ok := parseStat(1, []byte(bad)); ok {
			t.Errorf("parseStat(%q) = %+v; want refused", bad, got)
		}
	}
	self, ok := readStat(os.Getpid())
	if !ok || self.ppid != os.Getppid() || self.exited() || self.start == 0 {
		t.Errorf("readStat(self) = %+v, %v", self, ok)
	}
}
