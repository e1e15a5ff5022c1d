package enrich_test

import (
	"context"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/internal/enrich/enrichtest"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

var providers = []string{"openai", "anthropic"}

const testKey = "sk-test-SECRET-0123456789"

func eachProvider(t *testing.T, f func(t *testing.T, provider string)) {
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			f(t, p)
		})
	}
}

// newModel points the real SDK of provider at srv.
func newModel(t *testing.T, provider string, srv *modeltest.Server, edit ...func(*model.Config)) model.Model {
	t.Helper()
	cfg := model.Config{Label: "fast", Provider: provider, Name: "test-model", APIKey: testKey, BaseURL: srv.OpenAIBaseURL()}
	if provider == "anthropic" {
		cfg.BaseURL = srv.AnthropicBaseURL()
	}
	zero := 0
	cfg.MaxRetries = &zero
	for _, e := range edit {
		e(&cfg)
	}
	m, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// memoryTools are modelled on the tools of @modelcontextprotocol/server-memory.
var memoryTools = []enrich.Tool{
	{Name: "memory__create_entities", Description: "Create multiple new entities in the knowledge graph", Params: []string{"entities"}},
	{Name: "memory__create_relations", Description: "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice", Params: []string{"relations"}},
	{Name: "memory__add_observations", Description: "Add new observations to existing entities in the knowledge graph", Params: []string{"observations"}},
	{Name: "memory__delete_entities", Description: "Delete multiple entities and their associated relations from the knowledge graph", Params: []string{"entityNames"}},
	{Name: "memory__delete_observations", Description: "Delete specific observations from entities in the knowledge graph", Params: []string{"deletions"}},
	{Name: "memory__delete_relations", Description: "Delete multiple relations from the knowledge graph", Params: []string{"relations"}},
	{Name: "memory__read_graph", Description: "Read the entire knowledge graph", Params: nil},
	{Name: "memory__search_nodes", Description: "Search for nodes in the knowledge graph based on a query", Params: []string{"query"}},
	{Name: "memory__open_nodes", Description: "Open specific nodes in the knowledge graph by their names", Params: []string{"names"}},
}

// The scripted model's side of the conversation (package enrichtest).
type (
	sentTool = enrichtest.Tool
	scribe   = enrichtest.Scribe
)

var (
	sent      = enrichtest.Sent
	newScribe = enrichtest.NewScribe
	write     = enrichtest.Write
)
