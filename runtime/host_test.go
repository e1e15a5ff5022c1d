package runtime

import (
	"context"
	"log/slog"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"go.uber.org/goleak"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func echoRegistry(bin string) *Registry {
	return &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second, InitConcurrency: 2, MaxDepth: 1},
		Servers:  []decl.Server{{Name: "echo", Transport: "stdio", Command: bin, Trusted: true}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "echo"}}},
			{Name: "b", Subagents: []string{"a"}}},
	}
}

// Open's session owns its Host: closing the session stops its server and
// frees its pool. Before the Host, every registry's pool stayed in a
// package-level map for the life of the process.
func TestOpenFreesItsHost(t *testing.T) {
	bin := buildEchoFixture(t)
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	var pools []weak.Pointer[Pool]
	var hosts []weak.Pointer[Host]
	for range 20 {
		s, err := Open(ctx, echoRegistry(bin), "a", Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if r := s.Call(ctx, "echo__echo", []byte(`{"text":"hi"}`)); !r.OK {
			t.Fatalf("call: %+v", r)
		}
		pools = append(pools, weak.Make(s.pool))
		hosts = append(hosts, weak.Make(s.host))
		s.Close()
	}
	goleak.VerifyNone(t) // no connection, health check or child process left
	goruntime.GC()
	goruntime.GC()
	live := 0
	for i := range pools {
		if pools[i].Value() != nil || hosts[i].Value() != nil {
			live++
		}
	}
	if live != 0 {
		t.Errorf("%d of %d closed sessions still hold a pool or host", live, len(pools))
	}
}

// Sessions on one Host share the registry's pool, sub-agents included; Close frees both and refuses new
// sessions.
func TestHostSharesPoolsAndCloses(t *testing.T) {
	bin := buildEchoFixture(t)
	ctx := context.Background()
	h := NewHost(slog.New(slog.DiscardHandler))
	reg, other := echoRegistry(bin), echoRegistry(bin)
	var child *Session
	opts := Options{Runner: runnerFunc(func(ctx context.Context, s *Session, _ string) (string, error) {
		child = s
		return "done", nil
	})}
	s1, err := h.Open(ctx, reg, "b", opts)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := h.Open(ctx, reg, "a", opts)
	if err != nil {
		t.Fatal(err)
	}
	s3, err := h.Open(ctx, other, "a", opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := s1.Call(ctx, "agent__a", []byte(`{"prompt":"go"}`)); !r.OK {
		t.Fatalf("sub-agent: %+v", r)
	}
	if s1.pool != s2.pool || child == nil || child.pool != s1.pool || child.host != h || s3.pool == s1.pool {
		t.Error("sessions of one registry on one host do not share its pool")
	}
	// Open with Options.Host: the generated OpenX constructors' way onto a Host
	s4, err := Open(ctx, reg, "a", Options{Host: h})
	if err != nil {
		t.Fatal(err)
	}
	if s4.pool != s1.pool || s4.ownHost {
		t.Error("Open with Options.Host did not open on that host")
	}
	s4.Close()
	if h.closed {
		t.Error("closing a session closed the Host it did not own")
	}
	h.mu.Lock()
	n := len(h.pools)
	h.mu.Unlock()
	if n != 2 {
		t.Errorf("%d pools, want 2", n)
	}
	for _, s := range []*Session{s1, s2, s3} {
		s.Close()
	}
	h.Close()
	if len(h.pools) != 0 {
		t.Errorf("%d pools after Close", len(h.pools))
	}
	if _, err := h.Open(ctx, reg, "a", opts); err == nil || !strings.Contains(err.Error(), "host closed") {
		t.Errorf("Open after Close: %v", err)
	}
	goleak.VerifyNone(t)
}
