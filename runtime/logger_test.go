package runtime

import (
	"context"
	"log/slog"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Issue 21 item 22: with Options.Logger nil the library logged to
// slog.Default(), so a host's own logs got the runtime's events (the
// connections' too, through the Host Open made). A library logs only
// where it is told to, as go-sdk does: nil discards.
func TestNilLoggerDiscards(t *testing.T) {
	ev := &events{}
	old := slog.Default()
	slog.SetDefault(ev.logger())
	defer slog.SetDefault(old)

	f := newFixture(decl.Agent{Name: "a", Use: append(useTools("summarize"), decl.Use{Kind: decl.UseServer, Name: "broken"})})
	// a real process start through the Host's connections, which fails
	f.reg.Servers = append(f.reg.Servers, decl.Server{Name: "broken", Transport: "stdio", Command: "/nonexistent/toolgen-test-server", Trusted: true})
	s, err := Open(context.Background(), f.reg, "a", Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, s, "summarize", `{}`))
	call(t, s, "no_such_tool", `{}`)
	s.Close()
	h := NewHost(nil)
	s2, err := h.Open(context.Background(), f.reg, "a", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	h.Close()
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if len(ev.recs) > 0 {
		t.Errorf("%d records went to slog.Default(), the first %s %v", len(ev.recs), ev.recs[0].Name, ev.recs[0].Attrs)
	}
}
