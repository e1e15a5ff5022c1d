package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// memoryTools are the tools of @modelcontextprotocol/server-memory with
// their real descriptions and input schemas.
var memoryTools = []struct{ name, desc, schema string }{
	{"create_entities", "Create multiple new entities in the knowledge graph", `{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","description":"The name of the entity"},"entityType":{"type":"string","description":"The type of the entity"},"observations":{"type":"array","items":{"type":"string"},"description":"An array of observation contents associated with the entity"}},"required":["name","entityType","observations"]}}},"required":["entities"]}`},
	{"create_relations", "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice", `{"type":"object","properties":{"relations":{"type":"array","items":{"type":"object","properties":{"from":{"type":"string","description":"The name of the entity where the relation starts"},"to":{"type":"string","description":"The name of the entity where the relation ends"},"relationType":{"type":"string","description":"The type of the relation"}},"required":["from","to","relationType"]}}},"required":["relations"]}`},
	{"add_observations", "Add new observations to existing entities in the knowledge graph", `{"type":"object","properties":{"observations":{"type":"array","items":{"type":"object","properties":{"entityName":{"type":"string","description":"The name of the entity to add the observations to"},"contents":{"type":"array","items":{"type":"string"},"description":"An array of observation contents to add"}},"required":["entityName","contents"]}}},"required":["observations"]}`},
	{"delete_entities", "Delete multiple entities and their associated relations from the knowledge graph", `{"type":"object","properties":{"entityNames":{"type":"array","items":{"type":"string"},"description":"An array of entity names to delete"}},"required":["entityNames"]}`},
	{"delete_observations", "Delete specific observations from entities in the knowledge graph", `{"type":"object","properties":{"deletions":{"type":"array","items":{"type":"object","properties":{"entityName":{"type":"string","description":"The name of the entity containing the observations"},"observations":{"type":"array","items":{"type":"string"},"description":"An array of observations to delete"}},"required":["entityName","observations"]}}},"required":["deletions"]}`},
	{"delete_relations", "Delete multiple relations from the knowledge graph", `{"type":"object","properties":{"relations":{"type":"array","items":{"type":"object","properties":{"from":{"type":"string","description":"The name of the entity where the relation starts"},"to":{"type":"string","description":"The name of the entity where the relation ends"},"relationType":{"type":"string","description":"The type of the relation"}},"required":["from","to","relationType"]},"description":"An array of relations to delete"}},"required":["relations"]}`},
	{"read_graph", "Read the entire knowledge graph", `{"type":"object","properties":{}}`},
	{"search_nodes", "Search for nodes in the knowledge graph based on a query", `{"type":"object","properties":{"query":{"type":"string","description":"The search query to match against entity names, types, and observation content"}},"required":["query"]}`},
	{"open_nodes", "Open specific nodes in the knowledge graph by their names", `{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"description":"An array of entity names to retrieve"}},"required":["names"]}`},
}

func memoryServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "memory-server", Version: "1"}, nil)
	for _, t := range memoryTools {
		s.AddTool(&mcp.Tool{Name: t.name, Description: t.desc, InputSchema: json.RawMessage(t.schema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
			})
	}
	return s
}

// memoryFixture: a discovery agent over a memory server that has no lock
// entry (its tools are found at run time) beside two declared tools, with a
// precompiled index as generated code has.
func memoryFixture(t *testing.T) *Session {
	conn := newMemConnector()
	conn.add("memory", memoryServer())
	reg := &Registry{
		Package: "mem", Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 10 * time.Second, MaxDepth: 2, InitConcurrency: 4},
		Servers:  []decl.Server{{Name: "memory", Transport: "stdio", Command: "memory-server", Trusted: true}},
		Tools: []decl.Tool{
			{Name: "summarize", Description: "Summarize a document.", Kind: decl.KindGo, Category: "text", Go: echoGo()},
			{Name: "weather", Description: "Current weather for a city.", Kind: decl.KindGo, Go: echoGo()},
		},
		Agents: []decl.Agent{
			{Name: "m", Discovery: true, Use: []decl.Use{{Kind: decl.UseServer, Name: "memory"}, {Kind: decl.UseTool, Name: "summarize"}}},
			{Name: "none", Discovery: true},
		},
	}
	reg.Index = search.Build([]search.Doc{{Name: "summarize", Description: "Summarize a document.", Category: "text"}, {Name: "weather", Description: "Current weather for a city."}})
	return open(t, reg, "m", Options{Connector: conn})
}

type findResult struct {
	Results []FindHit
	Count   int
	Hint    string
}

func findCall(t *testing.T, s *Session, query string) findResult {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"query": query})
	out := mustOK(t, call(t, s, decl.ToolFind, string(args)))
	var r findResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Count != len(r.Results) {
		t.Errorf("count %d for %d results", r.Count, len(r.Results))
	}
	return r
}

func hitNames(hits []FindHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

// TestFindNeverEmpty is the server-memory case: "remember a person" shares
// no word with any tool, and tool_find used to answer {"count":0}.
func TestFindNeverEmpty(t *testing.T) {
	s := memoryFixture(t)

	// Words that occur rank as usual, with no hint.
	r := findCall(t, s, "create entities")
	if len(r.Results) == 0 || r.Results[0].Name != "memory__create_entities" || r.Hint != "" {
		t.Errorf("create entities: %+v", r)
	}

	// No word occurs: an overview of the loadable tools, spread over the
	// server and the category, and a hint of what they are about.
	r = findCall(t, s, "remember a person")
	names := hitNames(r.Results)
	if len(names) != 10 || names[0] != "memory__add_observations" || names[1] != "summarize" || slices.Contains(names, "weather") {
		t.Errorf("remember a person: results %v", names)
	}
	for _, want := range []string{`No tool matched "remember a person"`, "memory (server)", "text (category)", "entities", "relations", "observations", "nodes", "Describe the action and the object in plain words", `such as "add observations"`} {
		if !strings.Contains(r.Hint, want) {
			t.Errorf("hint lacks %q: %s", want, r.Hint)
		}
	}
	if strings.Contains(r.Hint, "create") || strings.Contains(r.Hint, "weather") {
		t.Errorf("hint names a verb or a tool outside the agent: %s", r.Hint)
	}

	// A word that matches part of indexed words: those tools, and a hint.
	r = findCall(t, s, "entit")
	if names := hitNames(r.Results); len(names) < 2 || !slices.Contains(names, "memory__create_entities") || !slices.Contains(names, "memory__delete_entities") {
		t.Errorf("entit: %v", names)
	}
	if !strings.Contains(r.Hint, "match words close to them (entities") {
		t.Errorf("entit: hint %q", r.Hint)
	}
	r = findCall(t, s, "obsevations") // a typo
	if names := hitNames(r.Results); len(names) == 0 || !strings.Contains(names[0], "observations") || r.Hint == "" {
		t.Errorf("obsevations: %+v", r)
	}

	// An agent with nothing to load gets nothing, and no hint.
	if err := s.Switch(context.Background(), "none"); err != nil {
		t.Fatal(err)
	}
	if hits, hint := s.FindWithHint("remember a person", 10); len(hits) != 0 || hint != "" {
		t.Errorf("agent without tools: %v, %q", hits, hint)
	}
}

// TestFinderIncremental: the precompiled index is used as is at start, and
// tools found at run time are added to it, not rebuilt with it.
func TestFinderIncremental(t *testing.T) {
	s := memoryFixture(t)
	snap := s.pool.snap.Load()
	idx := snap.finder.Index()
	if idx.Len() != 11 {
		t.Fatalf("index has %d tools, want 11", idx.Len())
	}
	if got, base := idx.Tables().Names, s.pool.reg.Index.Tables().Names; got != base {
		t.Errorf("the precompiled tables were rebuilt: names %q, want %q", got, base)
	}
	// The pool without live tools opens the precompiled index itself.
	var declared []*PoolTool
	for _, pt := range snap.tools {
		if pt.Decl != nil {
			declared = append(declared, pt)
		}
	}
	if f := s.pool.newFinder(declared, nil); f.Index() != s.pool.reg.Index {
		t.Error("newFinder rebuilt an index that holds every tool")
	}
}
