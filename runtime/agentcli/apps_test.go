package agentcli_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP Apps pass through: what an MCP Apps server says about its views — a
// tool's _meta.ui (and the flat "ui/resourceUri"), its ui:// resource with
// the resource's own _meta.ui, the view's HTML, a result's _meta — reaches
// the host through the agent binary exactly as the server sent it, over
// stdio and streamable HTTP, to a 2025-11-25 and a 2026-07-28 host.
func TestAppsPassThrough(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	apps := filepath.Join(t.TempDir(), "apps")
	if out, err := exec.Command("go", "build", "-o", apps, "../../testdata/mcpservers/apps").CombinedOutput(); err != nil {
		t.Fatalf("build the apps fixture: %v\n%s", err, out)
	}
	env := append(slices.Clone(agentEnv), "TESTAGENT_APPS="+apps)
	const view = "ui://weather/forecast.html"

	// What the server says, asked directly.
	direct := look(t, ctx, func(c *mcp.Client) (*mcp.ClientSession, error) {
		return c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(apps)}, handshakeRevision)
	}, "show_forecast", view)
	if direct.toolMeta == "null" || direct.resourceMeta == "null" || direct.read == "" {
		t.Fatalf("the fixture said nothing to compare: %+v", direct)
	}

	// The agent over HTTP, one binary for both revisions.
	url := serveAgentHTTP(t, "viewer", env)

	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		opts := &mcp.ClientSessionOptions{ProtocolVersion: version}
		t.Run("stdio-"+version, func(t *testing.T) {
			got := look(t, ctx, func(c *mcp.Client) (*mcp.ClientSession, error) {
				cmd := exec.Command(agentBin, "serve", "--stdio", "--agent", "viewer")
				cmd.Dir, cmd.Env = repoRoot, env
				return c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
			}, "apps__show_forecast", view)
			direct.same(t, got)
		})
		t.Run("http-"+version, func(t *testing.T) {
			got := look(t, ctx, func(c *mcp.Client) (*mcp.ClientSession, error) {
				return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, opts)
			}, "apps__show_forecast", view)
			direct.same(t, got)
		})
	}
}

// seen is what a host sees of an MCP Apps tool and its view, as JSON.
type seen struct {
	toolMeta, resourceMeta, resourceMIME, read, resultMeta, structured string
}

func (want seen) same(t *testing.T, got seen) {
	t.Helper()
	if got != want {
		t.Errorf("through the agent:\n%+v\nfrom the server:\n%+v", got, want)
	}
}

func look(t *testing.T, ctx context.Context, connect func(*mcp.Client) (*mcp.ClientSession, error), tool, uri string) seen {
	t.Helper()
	cs, err := connect(mcp.NewClient(&mcp.Implementation{Name: "apps-host", Version: "1"}, nil))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var s seen
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == tool {
			s.toolMeta = js(tl.Meta)
		}
	}
	if s.toolMeta == "" {
		t.Fatalf("tool %s not listed", tool)
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resources.Resources {
		if r.URI == uri {
			s.resourceMeta, s.resourceMIME = js(r.Meta), r.MIMEType
		}
	}
	if s.resourceMeta == "" {
		t.Fatalf("resource %s not listed", uri)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	s.read = js(read.Contents)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"city": "Lyon"}})
	if err != nil || res.IsError {
		t.Fatalf("call %s: %v %+v", tool, err, res)
	}
	var ui any
	if res.Meta != nil {
		ui = res.Meta["ui"]
	}
	s.resultMeta, s.structured = js(ui), js(res.StructuredContent)
	return s
}
