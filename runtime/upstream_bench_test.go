package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// BenchmarkMCPCall is one tools/call to the same go-sdk stdio server
// (testdata/mcpservers/echo) three ways: a bare go-sdk ClientSession (the
// baseline), an mcpconn.Conn, and a Session's full call pipeline over the
// MCP connector. DESIGN.md §7 targets session ≤ 1.05× bare.
func BenchmarkMCPCall(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "echo")
	if out, err := exec.Command("go", "build", "-o", bin, "../testdata/mcpservers/echo").CombinedOutput(); err != nil {
		b.Fatalf("building the echo fixture: %v\n%s", err, out)
	}
	ctx := context.Background()
	args := json.RawMessage(`{"text":"hello, bench"}`)

	b.Run("impl=bare-go-sdk", func(b *testing.B) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin)},
			&mcp.ClientSessionOptions{ProtocolVersion: mcpconn.DefaultProtocolVersion})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})

	// The same bare client with the per-call deadline a real client sets:
	// go-sdk then watches the context to send notifications/cancelled,
	// which Session.Call always pays for because every tool has a timeout.
	b.Run("impl=bare-go-sdk-deadline", func(b *testing.B) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin)},
			&mcp.ClientSessionOptions{ProtocolVersion: mcpconn.DefaultProtocolVersion})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
			cancel()
			if err != nil {
				b.Fatal(err)
			}
		}
	})

	m := mcpconn.NewManager(slog.New(slog.DiscardHandler))
	defer m.Close()
	b.Run("impl=mcpconn", func(b *testing.B) {
		c, err := m.Acquire(ctx, mcpconn.Config{Name: "echo", Command: bin})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Release()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Call(ctx, "echo", args); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("impl=session", func(b *testing.B) {
		reg := &Registry{
			Package: "p", Separator: "__",
			Defaults: decl.Defaults{ToolTimeout: 10 * time.Second, StartupTimeout: 10 * time.Second, InitConcurrency: 1, MaxDepth: 1},
			Servers:  []decl.Server{{Name: "echo", Transport: "stdio", Command: bin, Trusted: true}},
			Agents:   []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "echo"}}}},
		}
		s, err := Open(ctx, reg, "a", Options{Connector: mcpConnector{m: m}, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.ReportAllocs()
		for b.Loop() {
			if r := s.Call(ctx, "echo__echo", args); !r.OK {
				b.Fatal(r.Error)
			}
		}
	})
}
