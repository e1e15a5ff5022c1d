package agentcli_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool an upstream server adds while hosts are connected reaches them,
// and one it removes leaves them: a 2025-11-25 host (its own session,
// notifications/tools/list_changed) and a 2026-07-28 host (no session,
// the list-changed event on its subscriptions/listen stream) both hear of
// it and list the new tool, which they can call. The agent's
// tools.allowed still holds: a tool added under a name it does not allow
// is neither listed nor callable.
func TestUpstreamAddedToolReachesOpenSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	lc := filepath.Join(t.TempDir(), "listchanged")
	if out, err := exec.Command("go", "build", "-o", lc, "../../testdata/mcpservers/listchanged").CombinedOutput(); err != nil {
		t.Fatalf("build the listchanged fixture: %v\n%s", err, out)
	}
	cmd := exec.Command(agentBin, "serve", "--http", "127.0.0.1:0", "--agent", "changer")
	cmd.Dir, cmd.Env = repoRoot, append(slices.Clone(agentEnv), "TESTAGENT_LISTCHANGED="+lc, "TOOLGEN_LOG=debug")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	logs := &logBuffer{}
	mcpURL, _ := scan(stderr, logs)
	url := await(t, mcpURL, "its MCP address", logs)

	type hostSession struct {
		version string
		cs      *mcp.ClientSession
		changed chan struct{}
	}
	var hosts []hostSession
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		changed := make(chan struct{}, 16)
		c := mcp.NewClient(&mcp.Implementation{Name: "host-" + version, Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				select {
				case changed <- struct{}{}:
				default:
				}
			},
		})
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		defer cs.Close()
		hosts = append(hosts, hostSession{version, cs, changed})
	}
	names := func(t *testing.T, cs *mcp.ClientSession) []string {
		t.Helper()
		r, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range r.Tools {
			out = append(out, tl.Name)
		}
		sort.Strings(out)
		return out
	}
	call := func(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		r, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err.Error(), false
		}
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), !r.IsError
	}
	// drain forgets notifications so far: the next one is for what follows.
	drain := func() {
		for _, h := range hosts {
			for len(h.changed) > 0 {
				<-h.changed
			}
		}
	}
	// settle waits until every host was told the list changed and lists
	// what want says.
	settle := func(t *testing.T, want func([]string) bool, what string) {
		t.Helper()
		for _, h := range hosts {
			select {
			case <-h.changed:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: never told that the tool list changed (%s); it lists %v\n%s", h.version, what, names(t, h.cs), logs)
			}
			if got := names(t, h.cs); !want(got) {
				t.Errorf("%s: after the change it lists %v (%s)", h.version, got, what)
			}
		}
	}
	for _, h := range hosts {
		if got := names(t, h.cs); !slices.Equal(got, []string{"lc__add_tool", "lc__remove_tool"}) {
			t.Fatalf("%s: first list %v", h.version, got)
		}
	}

	drain()
	if out, ok := call(t, hosts[0].cs, "lc__add_tool", map[string]any{"name": "hidden"}); !ok {
		t.Fatalf("add_tool hidden: %s\n%s", out, logs)
	}
	if out, ok := call(t, hosts[0].cs, "lc__add_tool", map[string]any{"name": "new_one"}); !ok {
		t.Fatalf("add_tool new_one: %s", out)
	}
	settle(t, func(got []string) bool {
		return slices.Contains(got, "lc__new_one") && !slices.Contains(got, "lc__hidden")
	},
		"new_one added, and hidden, which tools.allowed leaves out")
	for _, h := range hosts {
		if out, ok := call(t, h.cs, "lc__new_one", nil); !ok || out != "new_one" {
			t.Errorf("%s: the added tool answered %q (ok %v)", h.version, out, ok)
		}
		if out, ok := call(t, h.cs, "lc__hidden", nil); ok {
			t.Errorf("%s: the tool tools.allowed leaves out answered %q", h.version, out)
		}
	}

	drain()
	if out, ok := call(t, hosts[1].cs, "lc__remove_tool", map[string]any{"name": "new_one"}); !ok {
		t.Fatalf("remove_tool new_one: %s", out)
	}
	settle(t, func(got []string) bool { return !slices.Contains(got, "lc__new_one") }, "new_one removed")
	for _, h := range hosts {
		if out, ok := call(t, h.cs, "lc__new_one", nil); ok {
			t.Errorf("%s: the removed tool still answered %q", h.version, out)
		}
	}
}
