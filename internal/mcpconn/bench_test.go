package mcpconn

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var benchArgs = json.RawMessage(`{"text":"hello, bench"}`)

// benchConn is a Conn to the echo fixture over stdio.
func benchConn(b *testing.B) (*Conn, func()) {
	m := NewManager(slog.New(slog.DiscardHandler))
	c, err := m.Acquire(context.Background(), Config{Name: "bench", Command: filepath.Join(fixtureDir, "echo")})
	if err != nil {
		b.Fatal(err)
	}
	return c, func() { c.Release(); m.Close() }
}

// bareSession is the baseline: a go-sdk client on the same server program
// with nothing of ours in between.
func bareSession(b *testing.B) (*mcp.ClientSession, func()) {
	client := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(filepath.Join(fixtureDir, "echo"))},
		&mcp.ClientSessionOptions{ProtocolVersion: DefaultProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	return cs, func() { cs.Close() }
}

// BenchmarkCall compares one tools/call through Conn.Call with a bare
// go-sdk ClientSession.CallTool on the same stdio server.
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=bare-go-sdk", func(b *testing.B) {
		cs, done := bareSession(b)
		defer done()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: benchArgs}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=mcpconn", func(b *testing.B) {
		c, done := benchConn(b)
		defer done()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Call(ctx, "echo", benchArgs); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkParallel100 measures throughput: one op is 100 concurrent
// tools/call on one connection.
func BenchmarkParallel100(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, call func() error) {
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			for range 100 {
				wg.Go(func() {
					if err := call(); err != nil {
						b.Error(err)
					}
				})
			}
			wg.Wait()
		}
	}
	b.Run("impl=bare-go-sdk", func(b *testing.B) {
		cs, done := bareSession(b)
		defer done()
		run(b, func() error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: benchArgs})
			return err
		})
	})
	b.Run("impl=mcpconn", func(b *testing.B) {
		c, done := benchConn(b)
		defer done()
		run(b, func() error {
			_, err := c.Call(ctx, "echo", benchArgs)
			return err
		})
	})
}
