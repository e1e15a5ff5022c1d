package mcpconn

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// starts is how many times a -fail-first fixture has started.
func starts(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(b)
}

// A server whose first starts fail is handed out down, with the reason,
// and retried in the background; when it comes up its holder hears of it
// and its tools are there.
func TestFailedStartRetriedInBackground(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	count := filepath.Join(t.TempDir(), "starts")
	cfg := fixture(rec, "echo", "-fail-first", "3:"+count)

	c, err := m.AcquireRetrying(context.Background(), cfg)
	if err != nil {
		t.Fatalf("AcquireRetrying: %v", err)
	}
	defer c.Release()
	// Acquire waited for the first attempt only.
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "failing start 1 of 3") || !strings.Contains(err.Error(), "exit status 1") {
		t.Errorf("Err() after a failed start = %v, want the reason", err)
	}
	if c.Health() != HealthRed || len(c.Tools()) != 0 {
		t.Errorf("down server: health %s, tools %v", c.Health(), toolNames(c.Tools()))
	}
	if _, err := c.Call(context.Background(), "echo", []byte(`{"text":"x"}`)); err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Errorf("call while down: %v", err)
	}
	var changed atomic.Int32
	c.OnToolsChanged(func() { changed.Add(1) })

	eventually(t, "the server to come up", func() bool { return c.Err() == nil })
	eventually(t, "tools-changed", func() bool { return changed.Load() == 1 })
	if got := toolNames(c.Tools()); !slicesContain(got, "echo") {
		t.Errorf("tools after coming up: %v", got)
	}
	if r := call(t, c, "echo", `{"text":"up"}`); r.Text() != "up" {
		t.Errorf("echo = %+v", r)
	}
	if c.Health() != HealthGreen {
		t.Errorf("health %s", c.Health())
	}
	for n := range 3 {
		e := rec.waitEvent(t, "server.fail", "attempt", strconv.Itoa(n))
		if e.attrs["retry_in_ms"] == "" || !strings.Contains(e.attrs["reason"], "failing start") {
			t.Errorf("server.fail %v", e)
		}
	}
	rec.waitEvent(t, "server.start", "attempt", "3")
	if got := starts(t, count); got != 4 {
		t.Errorf("%d starts, want 4", got)
	}
}

// Acquire, unlike AcquireRetrying, reports a failed first start as an
// error and leaves nothing retrying behind.
func TestAcquireFailsOnFailedStart(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	count := filepath.Join(t.TempDir(), "starts")
	cfg := fixture(rec, "echo", "-fail-first", "3:"+count)
	if _, err := m.Acquire(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), `server "echo": `) ||
		!strings.Contains(err.Error(), "failing start 1 of 3") {
		t.Fatalf("Acquire: %v", err)
	}
	m.Close() // waits for the abandoned server
	if got := starts(t, count); got != 1 {
		t.Errorf("%d starts, want 1: an abandoned server was retried", got)
	}
}

// Retrying stops with the last handle.
func TestRetryingStopsWithLastHandle(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	count := filepath.Join(t.TempDir(), "starts")
	c, err := m.AcquireRetrying(context.Background(), fixture(rec, "echo", "-fail-first", "1000:"+count))
	if err != nil {
		t.Fatal(err)
	}
	rec.waitEvent(t, "server.fail", "attempt", "2")
	c.Release()
	rec.waitEvent(t, "server.stop", "server", "echo")
	n := starts(t, count)
	fails := len(rec.find("server.fail"))
	time.Sleep(4 * minBackoff) // more than the next retry would have waited
	if got := starts(t, count); got != n || len(rec.find("server.fail")) != fails {
		t.Errorf("started %d more times after the last Release", got-n)
	}
}

// The wait for a server that never answers is its startup timeout, not
// that plus the teardown of the hung process (stdin, SIGTERM graces):
// Acquire returns while that teardown still runs.
func TestStartupWaitExcludesTeardown(t *testing.T) {
	defer func(a, b time.Duration) { stdinGrace, sigtermGrace = a, b }(stdinGrace, sigtermGrace)
	stdinGrace, sigtermGrace = 3*time.Second, 3*time.Second // silent ignores stdin EOF

	for _, retrying := range []bool{false, true} {
		t.Run("retrying="+strconv.FormatBool(retrying), func(t *testing.T) {
			rec := newRecorder()
			m := NewManager(nil)
			cfg := fixture(rec, "silent")
			cfg.StartupTimeout = 200 * time.Millisecond
			var (
				c   *Conn
				err error
			)
			if retrying {
				c, err = m.AcquireRetrying(context.Background(), cfg)
			} else {
				_, err = m.Acquire(context.Background(), cfg)
			}
			hung := childrenRunning(cfg.Command)
			if retrying {
				if err != nil || c.Err() == nil || !strings.Contains(c.Err().Error(), "startup timeout") {
					t.Errorf("AcquireRetrying: %v, Err %v", err, c.Err())
				}
				c.Release()
			} else if err == nil || !strings.Contains(err.Error(), "startup timeout") {
				t.Errorf("Acquire: %v, want a startup timeout", err)
			}
			if len(hung) == 0 {
				t.Errorf("Acquire returned after the hung server was torn down: it waited for the teardown")
			}
			m.Close()
			for _, pid := range hung {
				if alive(pid) {
					t.Errorf("silent (pid %d) still runs after Close", pid)
				}
			}
		})
	}
}

// childrenRunning lists this process's live children running exe.
func childrenRunning(exe string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if path, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); path == exe {
			out = append(out, pid)
		}
	}
	return out
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Issue 21 item 22: a server that stays down was a warning line on every
// retry. The first failure is said (error), the retries after it are
// debug records, with the backoff growing between them.
func TestRetriesOfADownServerSaidOnce(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	count := filepath.Join(t.TempDir(), "starts")
	c, err := m.AcquireRetrying(context.Background(), fixture(rec, "echo", "-fail-first", "1000:"+count))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	rec.waitEvent(t, "server.fail", "attempt", "3")
	last := 0
	for _, e := range rec.find("server.fail") {
		n, _ := strconv.Atoi(e.attrs["attempt"])
		if n > 3 {
			continue
		}
		want := slog.LevelDebug
		if n == 0 {
			want = slog.LevelError
		}
		if e.level != want {
			t.Errorf("attempt %d logged at %s, want %s", n, e.level, want)
		}
		delay, _ := strconv.Atoi(e.attrs["retry_in_ms"])
		if delay <= last {
			t.Errorf("attempt %d retries in %d ms, after %d: no backoff", n, delay, last)
		}
		last = delay
	}
}
