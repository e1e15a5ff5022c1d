package serve

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// The whole chain for an upstream change: a real MCP server (the
// listchanged fixture, over stdio) adds a tool and drops one; the open
// runtime session resolves its use set again, and the served client gets
// tools/list_changed and a list with the new tool and without the other.
func TestUpstreamListChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a fixture MCP server")
	}
	bin := filepath.Join(t.TempDir(), "listchanged")
	build := exec.Command("go", "build", "-o", bin, "../../testdata/mcpservers/listchanged")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build fixture: %v\n%s", err, out)
	}
	reg := &runtime.Registry{
		Package:   "servetest",
		Separator: "__",
		Servers: []decl.Server{{
			Name: "lc", Transport: "stdio", Command: bin, Trusted: true, StartupTimeout: 30 * time.Second,
		}},
		Agents: []decl.Agent{{
			Name: "watcher",
			Use:  []decl.Use{{Kind: decl.UseServer, Name: "lc"}},
		}},
	}
	ctx := context.Background()
	sess, err := runtime.Open(ctx, reg, "watcher", runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := New(sess, Options{})
	defer s.Close()
	cs, changed := client(t, inMemory(t, s))

	if tools := listNames(t, cs); tools["lc__add_tool"] == nil || tools["lc__remove_tool"] == nil {
		t.Fatalf("initial tools = %v", tools)
	}
	if res := call(t, cs, "lc__add_tool", map[string]any{"name": "late"}); res.IsError {
		t.Fatalf("lc__add_tool: %q", text(t, res))
	}
	deadline := time.After(30 * time.Second)
	for listNames(t, cs)["lc__late"] == nil {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("lc__late not listed after the server added it")
		}
	}
	if res := call(t, cs, "lc__late", nil); res.IsError || text(t, res) != "late" {
		t.Errorf("lc__late: %q", text(t, res))
	}
	if res := call(t, cs, "lc__remove_tool", map[string]any{"name": "add_tool"}); res.IsError {
		t.Fatalf("lc__remove_tool: %q", text(t, res))
	}
	deadline = time.After(30 * time.Second)
	for listNames(t, cs)["lc__add_tool"] != nil {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("lc__add_tool still listed after the server removed it")
		}
	}
	if res := call(t, cs, "lc__add_tool", map[string]any{"name": "x"}); !res.IsError {
		t.Errorf("calling the removed lc__add_tool succeeded: %q", text(t, res))
	}
	if res := call(t, cs, "lc__remove_tool", map[string]any{"name": "nothing"}); res.IsError {
		t.Errorf("lc__remove_tool after the change: %q", text(t, res))
	}
}
