package runtime

import (
	"slices"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// waitPool waits until the server's live list, as the pool has it,
// holds tool or not (want).
func waitPool(t *testing.T, p *Pool, server, tool string, want bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		p.mu.Lock()
		has := slices.ContainsFunc(p.live[server], func(u UpstreamTool) bool { return u.Name == tool })
		p.mu.Unlock()
		if has == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s: %s listed = %v, want %v", server, tool, has, want)
		}
	}
}

// A tool a server adds while a session is open joins the session's
// surface when the agent names the server in tools.use, and leaves it
// when the server drops it; the rest of the rules hold as at build time:
// the server's allow_tools, the agent's tools.allowed, untrusted servers
// meta only.
func TestServerAddedToolJoinsOpenSession(t *testing.T) {
	f := newFixture(
		decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}, {Kind: decl.UseBundle, Name: "web"}}},
		decl.Agent{Name: "b", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}, Allowed: []string{"github__search_code"}},
	)
	a := open(t, f.reg, "a", f.opts(&events{}))
	b := open(t, f.reg, "b", f.opts(&events{}))
	p := poolOf(t, f.reg)
	addEchoTool(f.conn.servers["scraper"], "fetch_all") // untrusted: meta only, and not in its allow_tools
	addEchoTool(f.conn.servers["github"], "drop_table") // outside github's allow_tools
	addEchoTool(f.conn.servers["github"], "get_file_blame")
	waitPool(t, p, "scraper", "fetch_all", true)
	waitPool(t, p, "github", "get_file_blame", true)
	for deadline := time.Now().Add(10 * time.Second); !slices.Contains(poolNames(a), "github__get_file_blame"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the open session never took the added tool: %v", poolNames(a))
		}
	}
	if got := mustOK(t, call(t, a, "github__get_file_blame", `{}`)); got != "get_file_blame:{}" {
		t.Errorf("the added tool answered %q", got)
	}
	for _, name := range []string{"github__drop_table", "scraper__fetch_all"} {
		if slices.Contains(poolNames(a), name) {
			t.Errorf("%s listed: %v", name, poolNames(a))
		}
		if r := call(t, a, name, `{}`); r.OK {
			t.Errorf("%s callable: %q", name, r.Result)
		}
	}
	if slices.Contains(poolNames(b), "github__get_file_blame") || call(t, b, "github__get_file_blame", `{}`).OK {
		t.Errorf("tools.allowed let the added tool through: %v", poolNames(b))
	}

	f.conn.servers["github"].RemoveTools("get_file_blame")
	for deadline := time.Now().Add(10 * time.Second); slices.Contains(poolNames(a), "github__get_file_blame"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the removed tool stayed")
		}
	}
	if r := call(t, a, "github__get_file_blame", `{}`); r.OK {
		t.Errorf("the removed tool answered %q", r.Result)
	}
}

// Under on_drift = "refuse" a tool the lock lacks stays held back when
// the server adds it to an open session's server.
func TestServerAddedToolHeldByLock(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "github"}}})
	for i := range f.reg.Servers {
		if f.reg.Servers[i].Name == "github" {
			f.reg.Servers[i].OnDrift = decl.DriftRefuse
		}
	}
	a := open(t, f.reg, "a", f.opts(&events{}))
	before := poolNames(a)
	addEchoTool(f.conn.servers["github"], "get_file_blame")
	waitPool(t, poolOf(t, f.reg), "github", "get_file_blame", true)
	a.Refresh() // takes the lists as they are now, as the session's own listener does
	if got := poolNames(a); slices.Contains(got, "github__get_file_blame") || !slices.Equal(got, before) {
		t.Errorf("on_drift = refuse, yet the open session lists %v (before: %v)", got, before)
	}
	if r := call(t, a, "github__get_file_blame", `{}`); r.OK {
		t.Errorf("the held tool answered %q", r.Result)
	}
}
