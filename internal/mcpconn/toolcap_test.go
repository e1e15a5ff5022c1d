package mcpconn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A server listing more tools, or more bytes of tools, than the caps
// allow is red with the reason and keeps none of them (issue 21 item 10).
func TestToolListCaps(t *testing.T) {
	cases := []struct {
		name string
		cfg  func(Config) Config
		args []string
		want string
	}{
		{"default count cap", func(c Config) Config { return c }, []string{"-tools", "10001", "-page-size", "1000"},
			"tool list over the cap: more than 10000 tools"},
		{"count cap", func(c Config) Config { c.MaxTools = 5; return c }, []string{"-tools", "50", "-page-size", "2"},
			"tool list over the cap: more than 5 tools"},
		{"byte cap", func(c Config) Config { c.MaxToolBytes = 4096; return c }, []string{"-tools", "10", "-desc", "1000"},
			"tool list over the cap: more than 4096 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder()
			m := NewManager(nil)
			defer m.Close()
			cfg := tc.cfg(fixture(rec, "manytools", tc.args...))
			cfg.StartupTimeout = 30 * time.Second
			_, err := m.Acquire(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Acquire: %v, want %q", err, tc.want)
			}
			c, err := m.AcquireRetrying(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			if c.Health() != HealthRed || c.Err() == nil || !strings.Contains(c.Err().Error(), tc.want) {
				t.Errorf("health %s, err %v; want red with %q", c.Health(), c.Err(), tc.want)
			}
			if n := len(c.Tools()); n != 0 {
				t.Errorf("%d tools kept from a list over the cap", n)
			}
		})
	}
	// The client stops asking once over the cap: 5 tools are over it on
	// the third page (two tools a page) of 25.
	pages := filepath.Join(t.TempDir(), "pages")
	m := NewManager(nil)
	cfg := fixture(newRecorder(), "manytools", "-tools", "50", "-page-size", "2", "-pages-file", pages)
	cfg.MaxTools = 5
	if _, err := m.Acquire(context.Background(), cfg); err == nil {
		t.Fatal("Acquire over the cap succeeded")
	}
	m.Close()
	b, err := os.ReadFile(pages)
	if err != nil {
		t.Fatal(err)
	}
	perProcess := map[string]int{} // a retry may have started another
	for _, pid := range strings.Fields(string(b)) {
		perProcess[pid]++
	}
	for pid, n := range perProcess {
		if n != 3 {
			t.Errorf("process %s was asked for %d pages of tools/list, want 3", pid, n)
		}
	}
	if len(perProcess) == 0 {
		t.Error("no tools/list page recorded")
	}

	// Under the caps, the same server is fine.
	m = NewManager(nil)
	defer m.Close()
	c := acquire(t, m, fixture(newRecorder(), "manytools", "-tools", "50", "-page-size", "7"))
	defer c.Release()
	if n := len(c.Tools()); n != 50 || c.Health() != HealthGreen {
		t.Errorf("under the caps: %d tools, health %s", n, c.Health())
	}
}

// A list that grows past the cap after list_changed ends the session; the
// server goes red with the reason rather than keeping the old list or
// taking the new one.

func TestToolListCapOnRefresh(t *testing.T) {
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	cfg := fixture(rec, "listchanged")
	cfg.MaxTools = 3
	c := acquire(t, m, cfg)
	defer c.Release()
	if r := call(t, c, "add_tool", `{"name":"third"}`); r.IsError {
		t.Fatalf("add_tool: %+v", r)
	}
	eventually(t, "third tool", func() bool { return len(c.Tools()) == 3 })
	if r := call(t, c, "add_tool", `{"name":"fourth"}`); r.IsError {
		t.Fatalf("add_tool: %+v", r)
	}
	// The reconnect meets a fresh process with its two tools, so the red
	// spell is short: the event says it happened, and why.
	rec.waitEvent(t, "server.health", "health", "red", "reason", "tool list over the cap: more than 3 tools")
}
