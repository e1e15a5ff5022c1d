package serve

import (
	"context"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Each HTTP client gets its own session: one client's tool_load is not
// another's surface, and a client's session closes when it hangs up.
func TestClientsIsolation(t *testing.T) {
	var mu sync.Mutex
	var opened []*fakeSession
	cl := NewClients(func(context.Context) (OwnedSession, error) {
		f := newFakeSession()
		mu.Lock()
		opened = append(opened, f)
		mu.Unlock()
		return f, nil
	}, Options{Name: "fake"})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- cl.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	url := "http://" + (<-addrc).String() + "/mcp"

	a, changedA := client(t, overHTTP(url))
	b, _ := client(t, overHTTP(url))
	if n := cl.Len(); n != 2 {
		t.Fatalf("%d client sessions, want 2", n)
	}
	if res := call(t, a, "load", nil); res.IsError {
		t.Fatal(text(t, res))
	}
	waitChanged(t, changedA)
	if listNames(t, a)["extra"] == nil {
		t.Error("client a: extra not listed after its load")
	}
	if listNames(t, b)["extra"] != nil {
		t.Error("client b sees the tool client a loaded")
	}
	if res := call(t, b, "extra", nil); !res.IsError {
		t.Error("client b called a tool only client a loaded")
	}

	a.Close()
	waitFor(t, "client a's session to close", func() bool { return opened[0].isClosed() })
	if opened[1].isClosed() {
		t.Error("closing client a closed client b's session")
	}
	if n := cl.Len(); n != 1 {
		t.Errorf("%d client sessions after a left, want 1", n)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ListenAndServe: %v", err)
	}
	if !opened[1].isClosed() || cl.Len() != 0 {
		t.Error("shutdown left a client session open")
	}
}

// A failing open refuses that client only.
func TestClientsOpenError(t *testing.T) {
	fail := true
	var mu sync.Mutex
	cl := NewClients(func(context.Context) (OwnedSession, error) {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			fail = false
			return nil, context.DeadlineExceeded
		}
		return newFakeSession(), nil
	}, Options{})
	url := startClients(t, cl)
	if _, err := mcpConnect(url); err == nil {
		t.Fatal("connect succeeded although the session failed to open")
	}
	cs, _ := client(t, overHTTP(url))
	if res := call(t, cs, "echo", map[string]any{}); res.IsError {
		t.Errorf("second client: %q", text(t, res))
	}
}

func startClients(t *testing.T, cl *Clients) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- cl.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return "http://" + (<-addrc).String() + "/mcp"
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPeekInitialize(t *testing.T) {
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`:                                     true,
		` [{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":1,"method":"initialize"}]`: true,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`:                                            false,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`:                                                 false,
		`not json`: false,
		``:         false,
		`{"method":"initialize","pad":"` + strings.Repeat("x", maxPeek) + `"}`: false,
	} {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		if got := peekInitialize(r); got != want {
			t.Errorf("peekInitialize(%.60q) = %v, want %v", body, got, want)
		}
		rest, _ := io.ReadAll(r.Body)
		if string(rest) != body {
			t.Errorf("body after peek differs (%d bytes, want %d)", len(rest), len(body))
		}
	}
}

// Each client's serverInfo names the agent its session opened on: after a
// switch, new clients see the new agent, not the first one.
func TestClientsServerInfoFollowsSwitch(t *testing.T) {
	var mu sync.Mutex
	agent := "first"
	cl := NewClients(func(context.Context) (OwnedSession, error) {
		mu.Lock()
		defer mu.Unlock()
		f := newFakeSession()
		f.agent = agent
		return f, nil
	}, Options{})
	url := startClients(t, cl)
	a, _ := client(t, overHTTP(url))
	mu.Lock()
	agent = "second" // what a switch does to the sessions opened next
	mu.Unlock()
	b, _ := client(t, overHTTP(url))
	if got := a.InitializeResult().ServerInfo.Name; got != "first" {
		t.Errorf("first client's serverInfo = %q, want first", got)
	}
	if got := b.InitializeResult().ServerInfo.Name; got != "second" {
		t.Errorf("client after the switch: serverInfo = %q, want second", got)
	}
}

// A client that speaks only the deprecated HTTP+SSE transport connects at
// /sse and gets a session of its own.
func TestClientsSSE(t *testing.T) {
	cl := NewClients(func(context.Context) (OwnedSession, error) { return newFakeSession(), nil }, Options{})
	url := startClients(t, cl)
	sse := strings.TrimSuffix(url, "/mcp") + "/sse"
	cs, _ := client(t, func(c *mcp.Client, o *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
		return c.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: sse}, o)
	})
	if res := call(t, cs, "echo", map[string]any{"over": "sse"}); text(t, res) != `{"over":"sse"}` {
		t.Errorf("echo over SSE = %q", text(t, res))
	}
	if cl.Len() != 1 {
		t.Errorf("%d client sessions, want 1", cl.Len())
	}
}
