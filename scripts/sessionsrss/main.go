// Command sessionsrss measures what concurrent HTTP sessions cost an agent
// of a large catalog: it starts itself as the agent (one Host, streamable
// HTTP with a session per client, runtime/serve.Clients) over a registry
// of N declared tools, connects the clients with go-sdk, each listing its
// tools and calling tool_find once, keeps them all open, and reads the
// agent process's resident set (VmRSS, and its peak VmHWM).
//
//	go run ./scripts/sessionsrss -tools 10000 -sessions 1000 -agent discovery
//
// Agent "discovery" finds and loads its tools (tool_find, tool_load);
// agent "direct" lists all N to every client.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

func main() {
	tools := flag.Int("tools", 10000, "tools in the catalog")
	sessions := flag.Int("sessions", 1000, "concurrent client sessions")
	agent := flag.String("agent", "discovery", "agent: discovery or direct")
	serveFlag := flag.Bool("serve", false, "be the agent (internal)")
	heap := flag.String("heap", "", "write the agent's heap profile (after a GC, all sessions open) to this file")
	flag.Parse()
	var err error
	if *serveFlag {
		err = serveAgent(*tools, *heap)
	} else {
		err = measure(*tools, *sessions, *agent, *heap)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sessionsrss:", err)
		os.Exit(1)
	}
}

var (
	words = strings.Fields(`account alert archive audit backup bucket build cache calendar certificate
	channel chart cluster comment commit config container contact cost customer dashboard database
	deploy device disk document domain email event feature file folder form gateway graph group host`)
	verbs = strings.Fields("list get create delete update search read write add remove start stop show find")
)

// registry is n declared tools, half builtin (one fs_read policy), half
// REST with a URL template and a schema, with a precompiled index.
func registry(n int) *decl.Registry {
	reg := &decl.Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ResponseMaxBytes: 100000},
		Policies:  []decl.Policy{{Name: "ro", Builtin: "fs_read", AllowedPaths: []string{"."}}},
		Agents: []decl.Agent{
			{Name: "direct", Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}}},
			{Name: "discovery", Discovery: true, Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}}},
		},
	}
	docs := make([]search.Doc, n)
	for i := range n {
		t := decl.Tool{
			Name:        fmt.Sprintf("%s_%s_%05d", verbs[i%len(verbs)], words[i%len(words)], i),
			Description: fmt.Sprintf("%s the %s records of project %d, filtered by owner and status.", verbs[i%len(verbs)], words[i%len(words)], i),
			Category:    words[i%7],
		}
		if i%2 == 0 {
			t.Kind, t.Policy = decl.KindBuiltin, "ro"
		} else {
			t.Kind = decl.KindREST
			t.REST = &decl.REST{Method: "GET", URL: decl.Value{{Lit: "https://api.example.com/v1/items/{id}"}}}
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"owner":{"type":"string"}},"required":["id"]}`)
		}
		reg.Tools = append(reg.Tools, t)
		docs[i] = search.Doc{Name: t.Name, Description: t.Description, Category: t.Category, Params: search.SchemaParams(t.InputSchema)}
	}
	reg.Index = search.Build(docs)
	return reg
}

// serveAgent is the agent: it prints its address and serves until killed.
func serveAgent(n int, heap string) error {
	reg := registry(n)
	logger := slog.New(slog.DiscardHandler)
	host := runtime.NewHost(logger)
	defer host.Close()
	open := func(ctx context.Context, agent string) (serve.OwnedSession, error) {
		return host.Open(ctx, reg, agent, runtime.Options{Logger: logger})
	}
	// one endpoint per agent
	mux := http2mux(map[string]*serve.Clients{
		"/direct":    serve.NewClients(func(ctx context.Context) (serve.OwnedSession, error) { return open(ctx, "direct") }, serve.Options{Logger: logger}),
		"/discovery": serve.NewClients(func(ctx context.Context) (serve.OwnedSession, error) { return open(ctx, "discovery") }, serve.Options{Logger: logger}),
	})
	if heap != "" {
		mux.HandleFunc("/heap", func(w http.ResponseWriter, r *http.Request) {
			goruntime.GC()
			f, err := os.Create(heap)
			if err == nil {
				err = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	return serveMux(ln, mux)
}

func measure(n, sessions int, agent, heap string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "-serve", "-tools", fmt.Sprint(n), "-heap", heap)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("agent did not start: %v", err)
	}
	endpoint := "http://" + strings.TrimSpace(addr) + "/" + agent
	ctx := context.Background()
	connect := func() (*mcp.ClientSession, error) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "sessionsrss", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
		if err != nil {
			return nil, err
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return nil, err
		}
		if agent == "discovery" {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: decl.ToolFind, Arguments: map[string]any{"query": "archive the audit records"}})
			if err != nil || r.IsError {
				return nil, fmt.Errorf("tool_find: %v %v", err, r)
			}
		}
		return cs, nil
	}
	first, err := connect()
	if err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	rss1, _ := procStatus(cmd.Process.Pid)
	start := time.Now()
	all := make([]*mcp.ClientSession, sessions-1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, 32)
	for i := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cs, err := connect()
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			all[i] = cs
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	took := time.Since(start)
	time.Sleep(time.Second)
	rss, hwm := procStatus(cmd.Process.Pid)
	if heap != "" {
		resp, err := http.Get("http://" + strings.TrimSpace(addr) + "/heap")
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	fmt.Printf("| %s | %d tools | %d sessions | RSS after 1: %.0f MB | RSS with all open: %.0f MB (peak %.0f MB) | %.0f KB per session | opened in %.1f s |\n",
		agent, n, sessions, rss1/1024, rss/1024, hwm/1024, (rss-rss1)/float64(sessions-1), took.Seconds())
	first.Close()
	for _, cs := range all {
		cs.Close()
	}
	return nil
}

// procStatus reads a process's VmRSS and VmHWM, in KB.
func procStatus(pid int) (rss, hwm float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var v float64
		if _, err := fmt.Sscanf(line, "VmRSS: %f kB", &v); err == nil {
			rss = v
		}
		if _, err := fmt.Sscanf(line, "VmHWM: %f kB", &v); err == nil {
			hwm = v
		}
	}
	return rss, hwm
}

func http2mux(eps map[string]*serve.Clients) *http.ServeMux {
	mux := http.NewServeMux()
	for path, c := range eps {
		mux.Handle(path, c.Handler())
	}
	return mux
}

func serveMux(ln net.Listener, mux *http.ServeMux) error {
	return (&http.Server{Handler: mux}).Serve(ln)
}
