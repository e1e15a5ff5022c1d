package agentcli_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingHost is a host that answers sampling and elicitation, and
// counts what it was asked.
type everythingHost struct {
	mu               sync.Mutex
	sampled, elicits []string
}

func (h *everythingHost) client(name string) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					h.sampled = append(h.sampled, tc.Text)
				}
			}
			return &mcp.CreateMessageResult{Model: "host-model", Role: "assistant", Content: &mcp.TextContent{Text: "the " + name + " answer"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.elicits = append(h.elicits, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name + " Lovelace", "check": true}}, nil
		},
	})
}

// ask calls server-everything's sampling and elicitation tools through
// the agent and checks that the host's answers came back in the results.
func (h *everythingHost) ask(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string) {
	t.Helper()
	textOf := func(r *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	call := func(tool string, args map[string]any) string {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if r.IsError {
			t.Fatalf("%s: error result %q", tool, textOf(r))
		}
		return textOf(r)
	}
	// A host lists first: the first list already holds the tools
	// server-everything offers only to a client that can answer them.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tl := range tools.Tools {
		listed[tl.Name] = true
	}
	if !listed["everything__trigger-sampling-request"] || !listed["everything__trigger-elicitation-request"] {
		t.Fatalf("the first tools/list lacks the sampling and elicitation tools (%d tools)", len(listed))
	}
	if out := call("everything__trigger-sampling-request", map[string]any{"prompt": "Say hi to " + name, "maxTokens": 20}); !strings.Contains(out, "the "+name+" answer") {
		t.Errorf("sampling result %q lacks the host's answer", out)
	}
	if out := call("everything__trigger-elicitation-request", map[string]any{}); !strings.Contains(out, name+" Lovelace") {
		t.Errorf("elicitation result %q lacks the host's answer", out)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sampled) == 0 || !strings.Contains(h.sampled[len(h.sampled)-1], "Say hi to "+name) || len(h.elicits) == 0 {
		t.Errorf("the host was asked %q and %q", h.sampled, h.elicits)
	}
}

// A 2026-07-28 host gets server-everything's sampling and elicitation
// requests as input-required rounds (that revision has no
// server-to-client requests), over stdio and over HTTP, through the agent
// binary: its first tools/list already holds the tools that need them,
// its answers reach the server, the final results reach it.
func TestEverythingInputRequiredRounds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	stateless := &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"}
	t.Run("stdio", func(t *testing.T) {
		h := &everythingHost{}
		cmd := gatewayCmd()
		cmd.Dir, cmd.Env = repoRoot, agentEnv
		cs, err := h.client("stdio").Connect(ctx, &mcp.CommandTransport{Command: cmd}, stateless)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		h.ask(t, ctx, cs, "stdio")
	})
	t.Run("http", func(t *testing.T) {
		url := serveGateway(t)
		h := &everythingHost{}
		cs, err := h.client("http").Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, stateless)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		h.ask(t, ctx, cs, "http")
	})
}

// A 2025-11-25 host (a session, server-to-client requests) and a
// 2026-07-28 host (no session, input-required rounds) use one agent
// binary's server-everything at once: both stay connected and take turns,
// and each gets its own answers. Two known gaps keep the turns apart (see
// the report of issue 22): a session opened while another host's
// declaration replaces the upstream connection misses the tools the new
// connection lists, and the server's question during two overlapping
// calls of different hosts on one stdio connection is refused (stdio
// carries no link from a server's request to the call that caused it, so
// it cannot be sent to the right host; mcpconn.HostOf).
func TestEverythingTwoRevisionsAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	url := serveGateway(t)
	type hostSession struct {
		h       *everythingHost
		cs      *mcp.ClientSession
		name    string
		version string
	}
	var hosts []hostSession
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		h := &everythingHost{}
		name := "rev" + strings.ReplaceAll(version, "-", "")
		cs, err := h.client(name).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		defer cs.Close()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatalf("%s: tools/list: %v", version, err)
		}
		hosts = append(hosts, hostSession{h, cs, name, version})
	}
	for i := range 3 {
		for _, hs := range hosts {
			t.Run(fmt.Sprintf("%s-%d", hs.version, i), func(t *testing.T) { hs.h.ask(t, ctx, hs.cs, hs.name) })
		}
	}
}

// serveAgentHTTP runs `serve --http 127.0.0.1:0 --agent NAME` with env and
// returns its MCP URL; the agent is stopped when the test ends.
func serveAgentHTTP(t *testing.T, name string, env []string) string {
	t.Helper()
	cmd := exec.Command(agentBin, "serve", "--http", "127.0.0.1:0", "--agent", name)
	cmd.Dir, cmd.Env = repoRoot, env
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
	return await(t, mcpURL, "its MCP address", logs)
}

// serveGateway runs `serve --http 127.0.0.1:0 --agent gateway` and returns
// its MCP URL.
func serveGateway(t *testing.T) string {
	t.Helper()
	return serveAgentHTTP(t, "gateway", agentEnv)
}
