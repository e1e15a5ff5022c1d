package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Sessions of one agent share its catalog: opening a session of a
// 10,000-tool agent on a Host whose pool is built allocates what the
// session itself holds, not an entry per tool. Before, one open cost
// 220,000 allocations and 25 MB (direct) or 20,000 and 2.2 MB (discovery).
// Counted in allocations and bytes, which do not depend on the machine's
// speed; the bounds are the targets (1 MB allocated, 100 KB retained) with
// the allocation count well below the old cost.
func TestOpenSessionSharesCatalog(t *testing.T) {
	reg := catalogRegistry(10000)
	for _, agent := range []string{"direct", "discovery"} {
		t.Run(agent, func(t *testing.T) {
			h := NewHost(slog.New(slog.DiscardHandler))
			defer h.Close()
			first := openCatalog(t, h, reg, agent)
			defer first.Close()
			allocs := testing.AllocsPerRun(20, func() { openCatalog(t, h, reg, agent).Close() })
			if allocs > 1000 {
				t.Errorf("opening a session made %.0f allocations; want at most 1000 (the catalog is shared)", allocs)
			}
			var before, after goruntime.MemStats
			goruntime.ReadMemStats(&before)
			const n = 20
			for range n {
				openCatalog(t, h, reg, agent).Close()
			}
			goruntime.ReadMemStats(&after)
			if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 1<<20 {
				t.Errorf("opening a session allocated %d bytes; want at most 1 MiB", per)
			}
			if per := retainedPerSession(t, h, reg, agent, 50); per > 100<<10 {
				t.Errorf("an open session retains %d bytes; want at most 100 KiB", per)
			}
		})
	}
}

// Shared entries run on the calling session: each session's REST calls
// use its own environment, and a builtin is built per session.
func TestSharedEntriesRunOnTheirSession(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(r.Header.Get("X-Team") + " " + r.URL.Path))
	}))
	defer srv.Close()
	reg := catalogRegistry(10)
	rt := &reg.Tools[1] // a REST tool
	rt.REST.URL = decl.Value{{Lit: srv.URL + "/items/{id}"}}
	rt.REST.Headers = []decl.KeyValue{{Key: "X-Team", Value: decl.Value{{Env: "TEAM"}}}}
	h := NewHost(slog.New(slog.DiscardHandler))
	defer h.Close()
	workdir := t.TempDir()
	open := func(team string) *Session {
		s, err := h.Open(context.Background(), reg, "direct", Options{Logger: slog.New(slog.DiscardHandler), Workdir: workdir,
			Getenv: func(k string) (string, bool) { return team, k == "TEAM" }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	red, blue := open("red"), open("blue")
	if len(red.Tools()) != 10 || len(blue.Tools()) != 10 {
		t.Fatalf("tools: %d and %d, want 10", len(red.Tools()), len(blue.Tools()))
	}
	for _, c := range []struct {
		s    *Session
		want string
	}{{red, "red /items/7"}, {blue, "blue /items/7"}, {red, "red /items/7"}} {
		if r := c.s.Call(context.Background(), rt.Name, json.RawMessage(`{"id":"7"}`)); !r.OK || r.Result != c.want {
			t.Errorf("REST call: %+v, want %q", r, c.want)
		}
	}
	// each session builds its own builtin (its own os.Root)
	for _, s := range []*Session{red, blue} {
		r := s.Call(context.Background(), reg.Tools[0].Name, json.RawMessage(`{"path":"missing.txt"}`))
		if r.OK || !strings.Contains(r.Error, "missing.txt") {
			t.Errorf("builtin call: %+v", r)
		}
		if st := s.st.Load(); len(st.builtins) != 1 || len(st.closers) != 1 {
			t.Errorf("session built %d builtins, %d closers; want its own one", len(st.builtins), len(st.closers))
		}
	}
	if red.st.Load().surf.Load().shared != blue.st.Load().surf.Load().shared {
		t.Error("two sessions of one agent on one host do not share the tool table")
	}
}
