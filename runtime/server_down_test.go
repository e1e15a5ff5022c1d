package runtime

import (
	"context"
	"log/slog"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/mcpconn"
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
		Defaults: Defaults{ToolTimeout: time.Minute, StartupTimeout: 20 * time.Second, InitConcurrency: 1, MaxDepth: 1},
		Servers:  []Server{{Name: "alpha", Transport: "stdio", Command: bin, Trusted: true}}, // no health_check
		Agents:   []Agent{{Name: "a", Use: []Use{{Kind: UseServer, Name: "alpha"}}}},
	}
	s, err := Open(context.Background(), reg, "a", Options{Logger: slog.New(rec), Connector: NewMCPConnector(m)})
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
