// Package tools holds the Go tools of the replicas example: small calls
// whose answers say which replica made them.
package tools

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// EchoArgs is echo's input.
type EchoArgs struct {
	Text string `json:"text"`
}

// Echo answers with the text and the replica (REPLICA, else the host
// name) that answered.
func Echo(ctx context.Context, a EchoArgs) (string, error) {
	return fmt.Sprintf("%s (replica %s)", a.Text, replica()), nil
}

// ReportArgs is report's input.
type ReportArgs struct {
	Lines int `json:"lines" jsonschema:"Number of lines, 1 to 100000."`
}

// Report writes Lines numbered lines, the first naming the replica.
func Report(ctx context.Context, a ReportArgs) (string, error) {
	if a.Lines < 1 || a.Lines > 100000 {
		return "", fmt.Errorf("lines must be 1 to 100000, got %d", a.Lines)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "report by replica %s\n", replica())
	for i := 1; i < a.Lines; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String(), nil
}

// WaitArgs is wait's input.
type WaitArgs struct {
	Ms int `json:"ms" jsonschema:"Milliseconds to wait, 0 to 5000."`
}

// Wait waits, for tests of calls in flight when a replica dies.
func Wait(ctx context.Context, a WaitArgs) (string, error) {
	if a.Ms < 0 || a.Ms > 5000 {
		return "", fmt.Errorf("ms must be 0 to 5000, got %d", a.Ms)
	}
	select {
	case <-time.After(time.Duration(a.Ms) * time.Millisecond):
		return fmt.Sprintf("waited %d ms (replica %s)", a.Ms, replica()), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// JobArgs is job's input.
type JobArgs struct {
	Ms int `json:"ms" jsonschema:"Milliseconds to work, 0 to 120000."`
}

// Job works for a while, for tests of tasks that outlive their request
// and move between replicas; a cancelled job stops at once.
func Job(ctx context.Context, a JobArgs) (string, error) {
	if a.Ms < 0 || a.Ms > 120000 {
		return "", fmt.Errorf("ms must be 0 to 120000, got %d", a.Ms)
	}
	select {
	case <-time.After(time.Duration(a.Ms) * time.Millisecond):
		return fmt.Sprintf("worked %d ms (replica %s)", a.Ms, replica()), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func replica() string {
	if r := os.Getenv("REPLICA"); r != "" {
		return r
	}
	h, _ := os.Hostname()
	return h
}

// AskArgs is ask's input (none).
type AskArgs struct{}

// Ask asks the host two questions in turn — a name, then a confirmation —
// so that a 2026-07-28 host answers them in two input-required rounds,
// which may reach different replicas.
func Ask(ctx context.Context, _ AskArgs) (string, error) {
	name, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}})
	if err != nil {
		return "", err
	}
	if name.Action != "accept" {
		return "no name given", nil
	}
	who, _ := name.Content["name"].(string)
	ok, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: "Greet " + who + "?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}}})
	if err != nil {
		return "", err
	}
	if yes, _ := ok.Content["ok"].(bool); !yes || ok.Action != "accept" {
		return "not greeted", nil
	}
	return fmt.Sprintf("Hello, %s! (asked by replica %s)", who, replica()), nil
}
