package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A server's prompt that echoes its arguments: a declared env() value
// coming back in the rendered prompt is scrubbed, as from tool results;
// a prompt the agent does not offer stays ErrPromptNotFound.
func TestPromptScrubbedAndRefused(t *testing.T) {
	node, args := everything(t)
	const token = "sk-live-prompt-0123456789"
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, StartupTimeout: 30 * time.Second, ResponseMaxBytes: 1 << 20, InitConcurrency: 1, MaxDepth: 1},
		Servers: []decl.Server{{Name: "everything", Transport: "stdio", Command: node, Args: args, Trusted: true,
			DenyPrompts: []string{"simple-*"},
			Env:         []decl.KeyValue{{Key: "API_TOKEN", Value: decl.Value{{Env: "EV_TOKEN"}}}}}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "everything"}}}},
	}
	s := open(t, reg, "a", Options{Getenv: envMap(map[string]string{"EV_TOKEN": token})})
	ctx := context.Background()
	res, err := s.GetPrompt(ctx, "everything__args-prompt", map[string]string{"city": token})
	if err != nil {
		t.Fatal(err)
	}
	requireScrubbed(t, "args-prompt", res.Messages[0].Content.(*mcp.TextContent).Text, "0123456789")
	if _, err := s.GetPrompt(ctx, "everything__simple-prompt", nil); !errors.Is(err, ErrPromptNotFound) {
		t.Errorf("denied prompt: err = %v, want ErrPromptNotFound", err)
	}
	for _, p := range s.Prompts(ctx) {
		if p.Name == "everything__simple-prompt" {
			t.Error("denied prompt listed")
		}
	}
}

// While a workflow step is active the agent offers the prompts of the
// step's direct bundles' servers and not its own; entering and leaving
// the step tell the subscribers (a served host re-lists).
func TestPromptsFollowStep(t *testing.T) {
	node, args := everything(t)
	reg := &Registry{
		Package: "p", Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 30 * time.Second, StartupTimeout: 30 * time.Second, ResponseMaxBytes: 1 << 20, InitConcurrency: 1, MaxDepth: 1},
		Servers:   []decl.Server{{Name: "everything", Transport: "stdio", Command: node, Args: args, Trusted: true}},
		Prompts:   []decl.Prompt{{Name: "review", Messages: []decl.PromptMessage{{Role: "user", Text: "Review."}}}},
		Bundles:   []decl.Bundle{{Name: "ev", Mode: "direct", Server: "everything"}},
		Workflows: []decl.Workflow{{Name: "wf", Roles: []decl.Role{{Name: "r", Steps: []decl.Step{{Name: "s", Bundles: []string{"ev"}}}}}}},
		Agents:    []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UsePrompt, Name: "review"}}}},
	}
	s := open(t, reg, "a", Options{})
	ctx := context.Background()
	names := func() map[string]bool {
		m := map[string]bool{}
		for _, p := range s.Prompts(ctx) {
			m[p.Name] = true
		}
		return m
	}
	notified := make(chan struct{}, 8)
	defer s.Subscribe(func() { notified <- struct{}{} })()
	if got := names(); len(got) != 1 || !got["review"] {
		t.Fatalf("prompts outside the step = %v, want [review]", got)
	}
	if _, err := s.ToolsForStep(ctx, "wf", "r", "s"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-notified:
	default:
		t.Error("entering the step told no subscriber")
	}
	if got := names(); got["review"] || !got["everything__args-prompt"] {
		t.Errorf("prompts in the step = %v, want the step's server's and not review", got)
	}
	if _, err := s.GetPrompt(ctx, "review", nil); !errors.Is(err, ErrPromptNotFound) {
		t.Errorf("review in the step: err = %v, want ErrPromptNotFound", err)
	}
	s.LeaveStep()
	select {
	case <-notified:
	default:
		t.Error("leaving the step told no subscriber")
	}
	if got := names(); len(got) != 1 || !got["review"] {
		t.Errorf("prompts after the step = %v, want [review]", got)
	}
}
