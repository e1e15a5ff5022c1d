package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// The input-required scenarios (SEP-2322): each tool asks the host during
// its call, as any tool or upstream server does; the served agent turns
// the questions into input-required rounds for a 2026-07-28 host.

func nameSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}
}

func confirmSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}}
}

func askName(ctx context.Context, message string) (string, error) {
	res, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: nameSchema()})
	if err != nil {
		return "", err
	}
	name, _ := res.Content["name"].(string)
	return name, nil
}

func sampleText(ctx context.Context, prompt string) (string, error) {
	res, err := runtime.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 50,
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}}})
	if err != nil {
		return "", err
	}
	if t, ok := res.Content.(*mcp.TextContent); ok {
		return t.Text, nil
	}
	return "(not text)", nil
}

// InputElicitation asks the user's name, under the name user_name: a host
// sees the question by that name and may answer it ahead.
func InputElicitation(ctx context.Context, _ NoArgs) (string, error) {
	name, err := askName(runtime.AskAs(ctx, "user_name"), "What is your name?")
	if err != nil {
		return "", err
	}
	return "Hello, " + name + "!", nil
}

// InputSampling asks the host's model.
func InputSampling(ctx context.Context, _ NoArgs) (string, error) {
	text, err := sampleText(ctx, "What is the capital of France?")
	if err != nil {
		return "", err
	}
	return "Sampling response: " + text, nil
}

// InputRoots asks for the host's roots.
func InputRoots(ctx context.Context, _ NoArgs) (string, error) {
	res, err := runtime.ListRoots(ctx)
	if err != nil {
		return "", err
	}
	var uris []string
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return fmt.Sprintf("Client exposed %d root(s): %s", len(uris), strings.Join(uris, ", ")), nil
}

// InputConfirm asks for a confirmation; the agent's request state carries
// the parked call (and a host's tampering with it is refused).
func InputConfirm(ctx context.Context, _ NoArgs) (string, error) {
	res, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: confirmSchema()})
	if err != nil {
		return "", err
	}
	if res.Action != "accept" {
		return "not confirmed: " + res.Action, nil
	}
	return "state-ok: requestState received and confirmation accepted", nil
}

// InputMultiple asks the user, the model and for roots, all at once.
func InputMultiple(ctx context.Context, _ NoArgs) (string, error) {
	var wg sync.WaitGroup
	var name, greeting string
	var roots *mcp.ListRootsResult
	var errs [3]error
	wg.Add(3)
	go func() { defer wg.Done(); name, errs[0] = askName(ctx, "What is your name?") }()
	go func() { defer wg.Done(); greeting, errs[1] = sampleText(ctx, "Generate a greeting") }()
	go func() { defer wg.Done(); roots, errs[2] = runtime.ListRoots(ctx) }()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%s %s — %d root(s) visible", greeting, name, len(roots.Roots)), nil
}

// InputMultiRound asks twice, one question after the other.
func InputMultiRound(ctx context.Context, _ NoArgs) (string, error) {
	name, err := askName(ctx, "Step 1: What is your name?")
	if err != nil {
		return "", err
	}
	res, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: "Step 2: What is your favorite color?",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"color": map[string]any{"type": "string"}}, "required": []string{"color"}}})
	if err != nil {
		return "", err
	}
	color, _ := res.Content["color"].(string)
	return fmt.Sprintf("Multi-round complete: %s likes %s", name, color), nil
}

// InputCapabilities asks the user and the model; what the host did not
// declare it can answer is not asked of it (the agent answers it itself).
func InputCapabilities(ctx context.Context, _ NoArgs) (string, error) {
	var wg sync.WaitGroup
	var got []string
	var mu sync.Mutex
	wg.Add(2)
	go func() {
		defer wg.Done()
		if res, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema()}); err == nil && res.Action == "accept" {
			mu.Lock()
			got = append(got, "elicitation")
			mu.Unlock()
		}
	}()
	go func() {
		defer wg.Done()
		if _, err := sampleText(ctx, "Generate a short greeting"); err == nil {
			mu.Lock()
			got = append(got, "sampling")
			mu.Unlock()
		}
	}()
	wg.Wait()
	return "Capability-aware input requests fulfilled: " + strings.Join(got, ", "), nil
}

// MissingCapability cannot work without the host's model: a host that did
// not declare sampling gets MissingRequiredClientCapability (-32021) for
// the call, not a tool error.
func MissingCapability(ctx context.Context, _ NoArgs) (string, error) {
	text, err := sampleText(runtime.Required(ctx), "Say hello")
	if err != nil {
		return "", err
	}
	return "Sampled: " + text, nil
}
