package mcpconn

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompts and resources of the real server-everything through two holders
// of one connection: lists are cached per session, a subscription is
// shared (one holder's cancel leaves the other's in place) and
// notifications/resources/updated reach every holder subscribed.
func TestFeaturesEverything(t *testing.T) {
	bin := npmBin(t)
	m := NewManager(nil)
	defer m.Close()
	cfg := Config{
		Name: "everything", Command: filepath.Join(bin, "mcp-server-everything"), Args: []string{"stdio"},
		Env: nodeEnv(bin), StartupTimeout: 30 * time.Second, Logger: newRecorder().logger(),
	}
	a, b := acquire(t, m, cfg), acquire(t, m, cfg)
	defer a.Release()
	defer b.Release()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	prompts, err := a.Prompts(ctx)
	if err != nil || len(prompts) == 0 {
		t.Fatalf("prompts = %v, %v", prompts, err)
	}
	again, _ := b.Prompts(ctx)
	if &again[0] != &prompts[0] {
		t.Error("second holder's prompts/list was not served from the cache")
	}
	res, err := a.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Oslo"})
	if err != nil || res.Messages[0].Content.(*mcp.TextContent).Text != "What's weather in Oslo?" {
		t.Errorf("args-prompt = %+v, %v", res, err)
	}
	resources, err := a.Resources(ctx)
	if err != nil || len(resources) == 0 {
		t.Fatalf("resources = %v, %v", resources, err)
	}
	uri := resources[0].URI
	templates, err := a.ResourceTemplates(ctx)
	if err != nil || len(templates) != 2 {
		t.Errorf("templates = %v, %v", templates, err)
	}
	rr, err := b.ReadResource(ctx, "demo://resource/dynamic/text/5")
	if err != nil || !strings.Contains(rr.Contents[0].Text, "Resource 5") {
		t.Errorf("read through a template = %+v, %v", rr, err)
	}
	comp, err := a.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "completable-prompt"},
		Argument: mcp.CompleteParamsArgument{Name: "department", Value: "Sa"},
	})
	if err != nil || len(comp.Completion.Values) != 1 || comp.Completion.Values[0] != "Sales" {
		t.Errorf("completion = %+v, %v", comp, err)
	}

	got := make(chan string, 16)
	stopA, err := a.SubscribeResource(ctx, uri, func(u string) { got <- "a " + u })
	if err != nil {
		t.Fatal(err)
	}
	stopB, err := b.SubscribeResource(ctx, uri, func(u string) { got <- "b " + u })
	if err != nil {
		t.Fatal(err)
	}
	defer stopB()
	stopA() // b's subscription must survive a's cancel
	if _, err := a.Call(ctx, "toggle-subscriber-updates", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case msg := <-got:
		if msg != "b "+uri {
			t.Errorf("update = %q, want %q", msg, "b "+uri)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/resources/updated for the remaining holder")
	}
}
