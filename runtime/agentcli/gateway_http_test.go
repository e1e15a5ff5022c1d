package agentcli_test

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveGatewayHTTP runs `serve --http 127.0.0.1:0 --agent gateway` and
// returns its MCP endpoint and its stderr so far.
func serveGatewayHTTP(t *testing.T) (url string, logs func() string) {
	t.Helper()
	cmd := exec.Command(agentBin, "serve", "--http", "127.0.0.1:0", "--agent", "gateway")
	cmd.Dir, cmd.Env = repoRoot, agentEnv
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var b strings.Builder
	logs = func() string { mu.Lock(); defer mu.Unlock(); return b.String() }
	urlc := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			b.WriteString(line + "\n")
			mu.Unlock()
			if _, after, ok := strings.Cut(line, " on http://"); ok && strings.HasPrefix(line, "serving agent") {
				urlc <- "http://" + after
			}
		}
		close(urlc)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		<-done
	})
	select {
	case url = <-urlc:
	case <-time.After(time.Minute):
		t.Fatalf("serve --http did not report its address:\n%s", logs())
	}
	if url == "" {
		t.Fatalf("serve --http exited early:\n%s", logs())
	}
	return url, logs
}

// Over streamable HTTP an upstream's sampling request reaches the HTTP
// host that declared sampling, as it does over stdio, on both revisions:
// a 2025-11-25 host gets a server-to-client request, a 2026-07-28 host an
// input-required result that its go-sdk client answers. The HTTP clients
// share the upstream connections: another client that declares no
// sampling, connecting in between, used to take sampling away from the
// shared connection ("client does not support CreateMessage").
func TestGatewaySamplingOverHTTP(t *testing.T) {
	url, logs := serveGatewayHTTP(t)
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			changed := make(chan struct{}, 16)
			var mu sync.Mutex
			var sampled string
			client := mcp.NewClient(&mcp.Implementation{Name: "http-host", Version: "1"}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					select {
					case changed <- struct{}{}:
					default:
					}
				},
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					mu.Lock()
					defer mu.Unlock()
					if len(req.Params.Messages) > 0 {
						if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
							sampled = tc.Text
						}
					}
					return &mcp.CreateMessageResult{Model: "host-model", Role: "assistant", Content: &mcp.TextContent{Text: "the HTTP host's answer"}}, nil
				},
			})
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, logs())
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != revision {
				t.Fatalf("negotiated %s, want %s", got, revision)
			}
			// A bystander host without sampling connects and lists.
			other, err := mcp.NewClient(&mcp.Implementation{Name: "plain-host", Version: "1"}, nil).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatalf("connect the second host: %v\n%s", err, logs())
			}
			defer other.Close()
			if _, err := other.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			const tool = "everything__trigger-sampling-request"
			for listed := false; !listed; {
				res, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, tl := range res.Tools {
					listed = listed || tl.Name == tool
				}
				if listed {
					break
				}
				select { // the stateless revision hears of no change: ask again
				case <-changed:
				case <-time.After(time.Second):
				case <-ctx.Done():
					t.Fatalf("%s never listed:\n%s", tool, logs())
				}
			}
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"prompt": "Say hi over HTTP", "maxTokens": 20}})
			if err != nil {
				t.Fatalf("call: %v\n%s", err, logs())
			}
			var out strings.Builder
			for _, c := range r.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					out.WriteString(tc.Text)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if r.IsError || !strings.Contains(out.String(), "the HTTP host's answer") || !strings.Contains(sampled, "Say hi over HTTP") {
				t.Errorf("result %q (isError=%v), host was asked %q\n%s", out.String(), r.IsError, sampled, logs())
			}
		})
	}
}
