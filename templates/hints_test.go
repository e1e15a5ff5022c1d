package templates_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/serve"
	"github.com/toolgen-dev/toolgen/templates"
)

const hintsSpec = `
tool "people_create" {
  description = "Create entities in the knowledge graph."
  category    = "memory"
  keywords    = ["graph", "entity"]
  always_load = true
  rest {
    method = "POST"
    url    = "https://graph.example/entities"
  }
  input_schema = { type = "object", properties = { name = { type = "string" } } }
}
tool "weather" {
  description = "Current weather for a city."
  rest {
    method = "GET"
    url    = "https://weather.example/{city}"
  }
  input_schema = { type = "object", properties = { city = { type = "string" } } }
}
agent "a" {
  tools { use = [tool.people_create, tool.weather] }
}
`

const hintsEnrichment = `{"version": 1, "prompt_version": "enrich-1", "model": "openai test",
 "tools": {"people_create": {"hash": "sha256:x", "queries": ["remember a person", "save who Ada is", "note a friend", "a fourth one"]}}}`

// A host that searches tools itself (Claude Code) reads
// _meta["anthropic/searchHint"] and _meta["anthropic/alwaysLoad"]: the
// generated registry carries them, and serve's tools/list shows them.
func TestHostHintsInToolsList(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "spec.hcl"), []byte(hintsSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "toolgen.enrich.json"), []byte(hintsEnrichment), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _, diags := spechcl.LoadDir(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	reg := templates.RuntimeRegistry(spec, nil)
	sess, err := runtime.Open(context.Background(), reg, "a", runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	srv := serve.New(sess, serve.Options{})
	defer srv.Close()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]mcp.Meta{}
	for _, tl := range list.Tools {
		got[tl.Name] = tl.Meta
	}
	people := got["people_create"]
	if people["anthropic/alwaysLoad"] != true {
		t.Errorf("people_create _meta = %v, want anthropic/alwaysLoad true", people)
	}
	hint, _ := people["anthropic/searchHint"].(string)
	if want := "memory; graph, entity; remember a person; save who Ada is; note a friend"; hint != want {
		t.Errorf("searchHint = %q, want %q", hint, want)
	}
	if w := got["weather"]; w["anthropic/alwaysLoad"] != nil || w["anthropic/searchHint"] != nil {
		t.Errorf("weather has hints it was not given: %v", w)
	}
}
