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
