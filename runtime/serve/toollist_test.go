package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	goruntime "runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// listingRegistry is n declared tools that agent "direct" lists to every
// client: half builtin, half REST with a schema (the shape of the runtime's
// catalog benchmarks).
func listingRegistry(n int) *runtime.Registry {
	reg := &runtime.Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ResponseMaxBytes: 100000},
		Policies:  []decl.Policy{{Name: "ro", Builtin: "fs_read", AllowedPaths: []string{"."}}},
		Agents:    []decl.Agent{{Name: "direct", Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}}}},
	}
	for i := range n {
		t := decl.Tool{Name: fmt.Sprintf("get_item_%05d", i), Description: fmt.Sprintf("Read item %d of the catalog.", i)}
		if i%2 == 0 {
			t.Kind, t.Policy = decl.KindBuiltin, "ro"
		} else {
			t.Kind = decl.KindREST
			t.REST = &decl.REST{Method: "GET", URL: decl.Value{{Lit: "https://api.example.com/v1/items/{id}"}}}
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
		}
		reg.Tools = append(reg.Tools, t)
	}
	return reg
}

// serveClients serves a session per HTTP client of reg's agent "direct"
// on a loopback port and returns its URL.
func serveClients(t *testing.T, reg *runtime.Registry) (*Clients, string) {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	host := runtime.NewHost(logger)
	t.Cleanup(func() { host.Close() })
	cl := NewClients(func(ctx context.Context) (OwnedSession, error) {
		return host.Open(ctx, reg, "direct", runtime.Options{Logger: logger})
	}, Options{Name: "listing"})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- cl.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("ListenAndServe: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return cl, "http://" + addr.String() + "/mcp"
}

// A new HTTP client of an agent that lists 10,000 tools costs little: the
// listed tools are shared, not registered again on each client's go-sdk
// server (that cost ~31 MB per client).
func TestNewHTTPClientSharesToolList(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000-tool agent")
	}
	cl, url := serveClients(t, listingRegistry(10000))
	first, _ := client(t, overHTTP(url))
	if n := len(listAll(t, first)); n != 10000 {
		t.Fatalf("first client lists %d tools, want 10000", n)
	}
	const clients = 4
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for range clients {
		client(t, overHTTP(url)) // initialize: opens the session and its server
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	if n := cl.Len(); n != clients+1 {
		t.Fatalf("%d client sessions, want %d", n, clients+1)
	}
	allocated := (after.TotalAlloc - before.TotalAlloc) / clients
	retained := int64(after.HeapAlloc-before.HeapAlloc) / clients
	t.Logf("per new client: %d KB allocated, %d KB retained", allocated>>10, retained>>10)
	// Both sides of the connection count here: the client's too.
	if allocated > 3<<20 {
		t.Errorf("a new client allocates %d KB, want ≤ 3 MiB", allocated>>10)
	}
	if retained > 200<<10 {
		t.Errorf("a new client retains %d KB, want ≤ 200 KiB", retained>>10)
	}
	// Every client's server answers from the one list.
	var lists []*toolList
	cl.mu.Lock()
	for srv := range cl.live {
		srv.mu.Lock()
		lists = append(lists, srv.list)
		srv.mu.Unlock()
	}
	cl.mu.Unlock()
	for _, l := range lists[1:] {
		if l != lists[0] {
			t.Fatal("two clients of the same agent hold different tool lists")
		}
	}
}

// tools/list pages as go-sdk paged it: 1,000 tools a page, in name order,
// with a cursor to the next; a cursor that is not ours is invalid params.
func TestToolListPages(t *testing.T) {
	_, url := serveClients(t, listingRegistry(2500))
	for _, rev := range []string{"2025-11-25", StatelessRevision} {
		t.Run(rev, func(t *testing.T) {
			cs, _ := clientAt(t, rev, overHTTP(url))
			ctx := context.Background()
			var names []string
			var pages []int
			cursor := ""
			for {
				res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				pages = append(pages, len(res.Tools))
				for _, tool := range res.Tools {
					names = append(names, tool.Name)
				}
				if res.NextCursor == "" {
					break
				}
				cursor = res.NextCursor
			}
			if fmt.Sprint(pages) != "[1000 1000 500]" {
				t.Errorf("pages of %v tools, want [1000 1000 500]", pages)
			}
			for i, n := range names {
				if want := fmt.Sprintf("get_item_%05d", i); n != want {
					t.Fatalf("tool %d is %s, want %s", i, n, want)
				}
			}
			if _, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "not a cursor"}); err == nil {
				t.Error("a bad cursor was accepted")
			}
		})
	}
}

// A REST tool's schema and a builtin's default reach the host as before.
func TestSharedListKeepsSchemas(t *testing.T) {
	_, url := serveClients(t, listingRegistry(2))
	cs, _ := client(t, overHTTP(url))
	tools := listNames(t, cs)
	rest := tools["get_item_00001"]
	if rest == nil {
		t.Fatalf("REST tool not listed: %v", tools)
	}
	b, _ := json.Marshal(rest.InputSchema) // the client decoded it: keys sorted
	if string(b) != `{"properties":{"id":{"type":"string"}},"required":["id"],"type":"object"}` {
		t.Errorf("REST tool schema = %s", b)
	}
	if tools[listChanged.Name] != nil {
		t.Errorf("the list_changed placeholder %s is listed", listChanged.Name)
	}
}

// listAll lists every page.
func listAll(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	var all []*mcp.Tool
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, tool)
	}
	return all
}

// BenchmarkOpenHTTPSession10k opens (initialize) and closes one HTTP
// client session of an agent listing 10,000 tools; both ends of the
// connection are in the figures.
func BenchmarkOpenHTTPSession10k(b *testing.B) {
	reg := listingRegistry(10000)
	logger := slog.New(slog.DiscardHandler)
	host := runtime.NewHost(logger)
	defer host.Close()
	cl := NewClients(func(ctx context.Context) (OwnedSession, error) {
		return host.Open(ctx, reg, "direct", runtime.Options{Logger: logger})
	}, Options{Name: "listing"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan net.Addr, 1)
	go cl.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a })
	url := "http://" + (<-addrc).String() + "/mcp"
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	connect := func() *mcp.ClientSession {
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	warm := connect()
	defer warm.Close()
	if _, err := warm.ListTools(ctx, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		connect().Close()
	}
}
