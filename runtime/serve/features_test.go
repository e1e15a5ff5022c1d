package serve

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Declared prompts and resources through a real runtime session: listed,
// rendered with arguments, read; the other agent's are refused by name and
// URI; after Switch the host gets prompts/list_changed and
// resources/list_changed and sees the new agent's.
func TestDeclaredPromptsAndResourcesSwitch(t *testing.T) {
	reg := &runtime.Registry{
		Package: "servetest",
		Prompts: []decl.Prompt{
			{Name: "review", Description: "Review a file.", Arguments: []decl.PromptArgument{{Name: "path", Required: true}},
				Messages: []decl.PromptMessage{{Role: "user", Text: "Review {path} for bugs."}}},
			{Name: "secret", Messages: []decl.PromptMessage{{Role: "user", Text: "Never shown."}}},
		},
		Resources: []decl.Resource{
			{Name: "guide", URI: "docs://guide", MIMEType: "text/markdown", Text: "# Guide"},
			{Name: "vault", URI: "docs://vault", MIMEType: "text/plain", Text: "hidden"},
		},
		Agents: []decl.Agent{
			{Name: "reviewer", Use: []decl.Use{{Kind: decl.UsePrompt, Name: "review"}, {Kind: decl.UsePrompt, Name: "secret"},
				{Kind: decl.UseResource, Name: "guide"}, {Kind: decl.UseResource, Name: "vault"}},
				Allowed: []string{"review", "docs://g*"}},
			{Name: "keeper", Use: []decl.Use{{Kind: decl.UsePrompt, Name: "secret"}, {Kind: decl.UseResource, Name: "vault"}}},
		},
	}
	ctx := context.Background()
	sess, err := runtime.Open(ctx, reg, "reviewer", runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := New(sess, Options{})
	defer s.Close()
	promptsChanged := make(chan struct{}, 8)
	resourcesChanged := make(chan struct{}, 8)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { promptsChanged <- struct{}{} },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { resourcesChanged <- struct{}{} },
	})
	cs, err := overHTTP(startHTTP(t, s))(c, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	caps := cs.InitializeResult().Capabilities
	if caps.Prompts == nil || !caps.Prompts.ListChanged || caps.Resources == nil || !caps.Resources.Subscribe || caps.Completions == nil {
		t.Fatalf("capabilities = %+v, want prompts, resources with subscribe, completions", caps)
	}
	if got := promptNames(t, cs); len(got) != 1 || got[0] != "review" {
		t.Fatalf("prompts = %v, want [review] (secret is not in tools.allowed)", got)
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"path": "main.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" || res.Messages[0].Content.(*mcp.TextContent).Text != "Review main.go for bugs." {
		t.Errorf("review = %+v", res.Messages)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review"}); err == nil {
		t.Error("review without its required argument: no error")
	}
	for _, name := range []string{"secret", "nonexistent"} {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("prompts/get %s: err = %v, want invalid params (not found)", name, err)
		}
	}
	if got := resourceURIs(t, cs); len(got) != 1 || got[0] != "docs://guide" {
		t.Fatalf("resources = %v, want [docs://guide]", got)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://guide"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "# Guide" || rr.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("read guide = %+v, %v", rr, err)
	}
	for _, uri := range []string{"docs://vault", "docs://nothing"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: no error, want resource not found", uri)
		}
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil {
			t.Errorf("subscribe %s: no error, want resource not found", uri)
		}
	}

	if err := sess.Switch(ctx, "keeper"); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan struct{}{"prompts": promptsChanged, "resources": resourcesChanged} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("no notifications/%s/list_changed after Switch", name)
		}
	}
	if got := promptNames(t, cs); len(got) != 1 || got[0] != "secret" {
		t.Errorf("after Switch: prompts = %v, want [secret]", got)
	}
	if got := resourceURIs(t, cs); len(got) != 1 || got[0] != "docs://vault" {
		t.Errorf("after Switch: resources = %v, want [docs://vault]", got)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"path": "x"}}); err == nil {
		t.Error("after Switch: the old agent's prompt is still served")
	}
}

func promptNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for p, err := range cs.Prompts(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Name)
	}
	return out
}

func resourceURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.URI)
	}
	return out
}

// An upstream prompts/list_changed or resources/list_changed reaches the
// host as its own list_changed, with the server's new prompt and resource
// listed and readable.
func TestUpstreamFeaturesChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a fixture MCP server")
	}
	bin := filepath.Join(t.TempDir(), "featureschanged")
	if out, err := exec.Command("go", "build", "-o", bin, "../../testdata/mcpservers/featureschanged").CombinedOutput(); err != nil {
		t.Fatalf("build fixture: %v\n%s", err, out)
	}
	reg := &runtime.Registry{
		Package:   "servetest",
		Separator: "__",
		Servers:   []decl.Server{{Name: "fc", Transport: "stdio", Command: bin, Trusted: true, StartupTimeout: 30 * time.Second}},
		Agents:    []decl.Agent{{Name: "watcher", Use: []decl.Use{{Kind: decl.UseServer, Name: "fc"}}}},
	}
	ctx := context.Background()
	sess, err := runtime.Open(ctx, reg, "watcher", runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s := New(sess, Options{})
	defer s.Close()
	promptsChanged := make(chan struct{}, 8)
	resourcesChanged := make(chan struct{}, 8)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { promptsChanged <- struct{}{} },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { resourcesChanged <- struct{}{} },
	})
	cs, err := inMemory(t, s)(c, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := promptNames(t, cs); len(got) != 0 {
		t.Fatalf("initial prompts = %v", got)
	}
	if res := call(t, cs, "fc__add_prompt", map[string]any{"name": "fresh"}); res.IsError {
		t.Fatalf("fc__add_prompt: %q", text(t, res))
	}
	select {
	case <-promptsChanged:
	case <-time.After(30 * time.Second):
		t.Fatal("no prompts/list_changed after the server added a prompt")
	}
	if got := promptNames(t, cs); len(got) != 1 || got[0] != "fc__fresh" {
		t.Errorf("prompts = %v, want [fc__fresh]", got)
	}
	if res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "fc__fresh"}); err != nil || res.Messages[0].Content.(*mcp.TextContent).Text != "prompt fresh" {
		t.Errorf("fc__fresh = %+v, %v", res, err)
	}
	if res := call(t, cs, "fc__add_resource", map[string]any{"name": "new"}); res.IsError {
		t.Fatalf("fc__add_resource: %q", text(t, res))
	}
	select {
	case <-resourcesChanged:
	case <-time.After(30 * time.Second):
		t.Fatal("no resources/list_changed after the server added a resource")
	}
	if got := resourceURIs(t, cs); len(got) != 1 || got[0] != "fixture://new" {
		t.Errorf("resources = %v, want [fixture://new]", got)
	}
}
