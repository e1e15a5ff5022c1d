// Command client is the MCP conformance suite's client under test: it
// connects with internal/mcpconn exactly as the runtime does (streamable
// HTTP, the pinned protocol version, the same handshake and tools/list),
// then does what the scenario named by MCP_CONFORMANCE_SCENARIO asks.
//
//	conformance client --command "client" --scenario initialize
//
// The suite appends the server URL as the last argument.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: client SERVER_URL")
		os.Exit(2)
	}
	if err := run(os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

func run(url, scenario string) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := mcpconn.NewManager(logger)
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := m.Acquire(ctx, mcpconn.Config{Name: "conformance", Transport: mcpconn.TransportHTTP, URL: url})
	if err != nil {
		return err
	}
	defer c.Release()
	fmt.Printf("connected: %d tools\n", len(c.Tools()))

	switch scenario {
	case "tools_call", "sse-retry":
		// The scenario's server has add_numbers; call every tool it lists
		// with arguments that fit it.
		for _, t := range c.Tools() {
			args := `{}`
			if t.Name == "add_numbers" {
				args = `{"a":5,"b":3}`
			}
			r, err := c.Call(ctx, t.Name, []byte(args))
			if err != nil {
				return fmt.Errorf("tools/call %s: %w", t.Name, err)
			}
			fmt.Printf("%s: %s (isError=%v)\n", t.Name, r.Text, r.IsError)
		}
	}
	return nil
}
