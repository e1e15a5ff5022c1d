package serve

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	rt "runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// proxied is a host's go-sdk client talking over OS pipes to ServeIO, whose
// agent uses the echo fixture whole over stdio: the served path of an
// agent binary in one process (scripts/servedbench runs it across three).
type proxied struct {
	cs   *mcp.ClientSession
	done chan error
}

var echoBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "servetest-echo")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "echo")
	if out, err := exec.Command("go", "build", "-o", bin, "../../testdata/mcpservers/echo").CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

func newProxied(tb testing.TB, protocol string) *proxied {
	tb.Helper()
	ctx := context.Background()
	s := New(openEcho(tb, runtime.Options{}), Options{})
	tb.Cleanup(func() { s.Close() })
	hostR, agentW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	agentR, hostW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	p := &proxied{done: make(chan error, 1)}
	go func() { p.done <- s.ServeIO(ctx, agentR, agentW) }()
	p.cs, err = mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: hostR, Writer: hostW}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		p.cs.Close()
		<-p.done
	})
	return p
}

// openEcho is a session of an agent whose tools are the echo fixture's,
// over stdio.
func openEcho(tb testing.TB, opts runtime.Options) *runtime.Session {
	tb.Helper()
	return openEchoTimeout(tb, opts, 30*time.Second)
}

// openEchoTimeout is openEcho with its tools under timeout.
func openEchoTimeout(tb testing.TB, opts runtime.Options, timeout time.Duration) *runtime.Session {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds and runs a fixture MCP server")
	}
	bin, err := echoBin()
	if err != nil {
		tb.Fatalf("build echo fixture: %v", err)
	}
	reg := &runtime.Registry{
		Package: "servetest", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: timeout, ResponseMaxBytes: 100000, StartupTimeout: 30 * time.Second, MaxDepth: 2, InitConcurrency: 1},
		// server-everything speaks 2025-11-25, the revision the lean client path takes
		Servers: []decl.Server{{Name: "echo", Transport: "stdio", Command: bin, Trusted: true, StartupTimeout: 30 * time.Second, ProtocolVersion: "2025-11-25"}},
		Agents:  []decl.Agent{{Name: "gateway", Use: []decl.Use{{Kind: decl.UseServer, Name: "echo"}}}},
	}
	sess, err := runtime.Open(context.Background(), reg, "gateway", opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sess.Close() })
	return sess
}

func (p *proxied) call(tb testing.TB, args json.RawMessage) *mcp.CallToolResult {
	res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo__echo", Arguments: args})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// goroutinesCreated is the process's count so far.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// cpuTime is the CPU time the process has used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkProxiedCall is one tools/call through the whole served path in
// one process: host client → ServeIO (OS pipes) → runtime.Session →
// the echo fixture over stdio. goroutines/op counts goroutines started
// per call anywhere in the process (host client included).
func BenchmarkProxiedCall(b *testing.B) {
	p := newProxied(b, "2025-11-25")
	args := json.RawMessage(`{"text":"hello from the benchmark"}`)
	for range 100 {
		p.call(b, args)
	}
	rt.GC()
	g0, c0 := goroutinesCreated(), cpuTime()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := p.call(b, args); res.IsError {
			b.Fatal("tool error")
		}
	}
	b.ReportMetric(float64(goroutinesCreated()-g0)/float64(b.N), "goroutines/op")
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}
