package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A library host gives the session its own logger; the shared connection
// manager logs elsewhere. A server that dies mid-session must still reach
// the session's logger as server.fail with the reason, even when the
// manager has it running again a moment later.
func TestServerDeathReachesSessionLogger(t *testing.T) {
	bin := buildAcceptanceFixture(t)
	m := mcpconn.NewManager(slog.New(slog.DiscardHandler)) // the manager's own events go nowhere
	defer m.Close()
	rec := &accRecorder{}
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: time.Minute, StartupTimeout: 20 * time.Second, InitConcurrency: 1, MaxDepth: 1},
		Servers:  []decl.Server{{Name: "alpha", Transport: "stdio", Command: bin, Trusted: true}}, // no health_check
		Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "alpha"}}}},
	}
	s, err := Open(context.Background(), reg, "a", Options{Logger: slog.New(rec), Connector: mcpConnector{m: m}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pid := pidVia(t, s, "alpha__pid")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, EventServerFail, "server", "alpha", "agent", "a")
	// It comes back (a new process) and answers again.
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := s.Call(context.Background(), "alpha__pid", []byte(`{}`))
		if r.OK && r.Result != strconv.Itoa(pid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("alpha did not come back: %+v", r)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A server that fails its first start leaves the session open with the
// server red and the reason; it is retried in the background, and when it
// comes up every session already open offers its (locked) tools and tells
// its subscribers.
func TestServerFailingFirstStartComesUpLater(t *testing.T) {
	bin := buildAcceptanceFixture(t)
	late := filepath.Join(t.TempDir(), "late") // not there yet: every start fails
	m := mcpconn.NewManager(slog.New(slog.DiscardHandler))
	defer m.Close()
	rec := &accRecorder{}
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: time.Minute, StartupTimeout: 20 * time.Second, InitConcurrency: 1, MaxDepth: 1},
		Servers:  []decl.Server{{Name: "alpha", Transport: "stdio", Command: late, Trusted: true}},
		Tools: []decl.Tool{{Name: "alpha__echo", Description: "Echo the text back.", Kind: decl.KindMCP, Server: "alpha", Original: "echo",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "alpha"}}}},
	}
	h := NewHost(slog.New(slog.DiscardHandler))
	defer h.Close()
	s, err := h.Open(context.Background(), reg, "a", Options{Logger: slog.New(rec), Connector: mcpConnector{m: m}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec.wait(t, EventServerFail, "server", "alpha", "agent", "a")
	other, err := h.Open(context.Background(), reg, "a", Options{Connector: mcpConnector{m: m}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	requireHealth(t, s, map[string]Health{"alpha": HealthRed})
	if st := s.Servers(); len(st) != 1 || !strings.Contains(st[0].Error, "no such file") {
		t.Errorf("Servers() = %+v, want alpha red with the reason", st)
	}
	if hasTool(s, "alpha__echo") {
		t.Error("alpha__echo offered while alpha is down")
	}
	// a call to its tool says why, not "not found"
	if r := s.Call(context.Background(), "alpha__echo", []byte(`{"text":"early"}`)); r.OK ||
		!strings.Contains(r.Error, `server "alpha" is unavailable`) || !strings.Contains(r.Error, "no such file") {
		t.Errorf("call while alpha is down = %+v", r)
	}
	var notified, otherNotified atomic.Int32
	defer s.Subscribe(func() { notified.Add(1) })()
	defer other.Subscribe(func() { otherNotified.Add(1) })()

	copyExecutable(t, bin, late)
	rec.wait(t, EventServerStart, "server", "alpha", "agent", "a")
	deadline := time.Now().Add(time.Minute)
	for !hasTool(s, "alpha__echo") || notified.Load() == 0 || !hasTool(other, "alpha__echo") || otherNotified.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("alpha came up but the sessions did not follow: tools %v and %v, notified %d and %d",
				s.Tools(), other.Tools(), notified.Load(), otherNotified.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, sess := range []*Session{s, other} {
		if r := sess.Call(context.Background(), "alpha__echo", []byte(`{"text":"late"}`)); !r.OK || r.Result != "late" {
			t.Errorf("alpha__echo = %+v", r)
		}
	}
	requireHealth(t, s, map[string]Health{"alpha": HealthGreen})
	if st := s.Servers(); st[0].Error != "" || st[0].Tools == 0 {
		t.Errorf("Servers() = %+v", st)
	}
}

func hasTool(s *Session, name string) bool {
	for _, ti := range s.Tools() {
		if ti.Name == name {
			return true
		}
	}
	return false
}
