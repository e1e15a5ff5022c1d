package mcpconn

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// fixtureDir holds the fixture servers of testdata/mcpservers, built once.
var fixtureDir string

var fixtureNames = []string{"echo", "crash", "garbage", "silent", "slowstart", "huge", "badschema", "listchanged", "flood", "manytools", "rounds"}

func TestMain(m *testing.M) {
	if server := os.Getenv(agentHelperEnv); server != "" {
		os.Exit(runAgentHelper(server))
	}
	dir, err := os.MkdirTemp("", "mcpconn-fixtures")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	args := []string{"build", "-o", dir + "/"}
	for _, n := range fixtureNames {
		args = append(args, "../../testdata/mcpservers/"+n)
	}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building fixtures: %v\n%s", err, out)
		os.Exit(1)
	}
	fixtureDir = dir
	// Fast reconnects and teardowns keep the suite short.
	minBackoff = 50 * time.Millisecond
	stdinGrace = 300 * time.Millisecond
	sigtermGrace = 500 * time.Millisecond
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// event is one recorded slog record: its message (the event name) and
// attributes as strings.
type event struct {
	name  string
	level slog.Level
	attrs map[string]string
}

func (e event) String() string { return fmt.Sprintf("%s %v", e.name, e.attrs) }

// recorder is a slog.Handler that keeps every record for assertions.
type recorder struct {
	mu     *sync.Mutex
	events *[]event
	preset []slog.Attr
}

func newRecorder() *recorder { return &recorder{mu: &sync.Mutex{}, events: &[]event{}} }

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) WithAttrs(as []slog.Attr) slog.Handler {
	return &recorder{mu: r.mu, events: r.events, preset: append(append([]slog.Attr{}, r.preset...), as...)}
}
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	e := event{name: rec.Message, level: rec.Level, attrs: map[string]string{}}
	for _, a := range r.preset {
		e.attrs[a.Key] = a.Value.String()
	}
	rec.Attrs(func(a slog.Attr) bool {
		e.attrs[a.Key] = a.Value.String()
		return true
	})
	r.mu.Lock()
	*r.events = append(*r.events, e)
	r.mu.Unlock()
	return nil
}

func (r *recorder) logger() *slog.Logger { return slog.New(r) }

func (r *recorder) all() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), *r.events...)
}

// find returns the events called name whose attributes contain every
// key=value given.
func (r *recorder) find(name string, kv ...string) []event {
	var out []event
	for _, e := range r.all() {
		if e.name != name {
			continue
		}
		ok := true
		for i := 0; i+1 < len(kv); i += 2 {
			if !strings.Contains(e.attrs[kv[i]], kv[i+1]) {
				ok = false
			}
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) waitEvent(t *testing.T, name string, kv ...string) event {
	t.Helper()
	eventually(t, fmt.Sprintf("event %s %v", name, kv), func() bool { return len(r.find(name, kv...)) > 0 })
	return r.find(name, kv...)[0]
}

// eventually polls cond until it holds; it bounds waiting, it does not
// measure anything.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fixture(rec *recorder, name string, args ...string) Config {
	return Config{
		Name:      name,
		Transport: TransportStdio,
		Command:   filepath.Join(fixtureDir, name),
		Args:      args,
		Logger:    rec.logger(),
	}
}

func acquire(t *testing.T, m *Manager, cfg Config) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := m.Acquire(ctx, cfg)
	if err != nil {
		t.Fatalf("Acquire(%s): %v", cfg.Name, err)
	}
	return c
}

func call(t *testing.T, c *Conn, tool, args string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := c.Call(ctx, tool, []byte(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", tool, err)
	}
	return r
}

func pidOf(t *testing.T, c *Conn) int {
	t.Helper()
	pid, err := strconv.Atoi(call(t, c, "pid", "{}").Text())
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// groupMembers lists the live (non-zombie) processes in process group pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces, so cut at ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

func procExists(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

// npmBin is testdata/npm/node_modules/.bin, or the test is skipped when
// `make npm` has not run.
func npmBin(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/npm/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skip("testdata/npm/node_modules is missing: run `make npm` to install the real MCP servers")
	}
	return filepath.Join(dir, ".bin")
}

// nodeEnv puts Node 22 from testdata/npm first on PATH.
func nodeEnv(bin string) []string {
	return []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
}

// startListening runs a fixture server over a network transport and
// returns the URL or address it printed. The process is killed at cleanup.
func startListening(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(fixtureDir, name), args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	go io.Copy(io.Discard, out)
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if !ok {
		t.Fatalf("%s printed %q", name, line)
	}
	return addr
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func toolNames(ts []Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
