package enrich_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/runtime/search"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

func newEnricher(t *testing.T, provider string, s *scribe, dir string) (*enrich.Enricher, *modeltest.Server) {
	srv := modeltest.NewServer(t)
	srv.RequireKey(testKey)
	srv.Respond(s.Respond)
	return &enrich.Enricher{Model: newModel(t, provider, srv), ModelName: provider + " test-model", Dir: dir}, srv
}

// TestEnricherCache: tools found at run time are asked once; their
// answers land in private files, and the next process (a new Enricher on
// the same directory) asks nothing. The finder adds them to the
// precompiled index as a tier and finds a tool by words only its
// enrichment has.
func TestEnricherCache(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string) {
		dir := filepath.Join(t.TempDir(), "toolgen", "enrich")
		e, srv := newEnricher(t, provider, newScribe(t), dir)
		found, err := e.EnrichMissing(ctxFor(t), memoryTools)
		if err != nil {
			t.Fatal(err)
		}
		if found.Asked != len(memoryTools) || found.Cached != 0 || len(found.Queries) != len(memoryTools) || len(srv.Requests()) != len(memoryTools) {
			t.Fatalf("first run: asked %d, cached %d, %d with queries, %d requests", found.Asked, found.Cached, len(found.Queries), len(srv.Requests()))
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("cache directory: %v %v", fi.Mode(), err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(memoryTools) {
			t.Errorf("%d files in the cache, want %d", len(entries), len(memoryTools))
		}
		for _, de := range entries {
			fi, _ := de.Info()
			if fi.Mode().Perm() != 0o600 || strings.HasPrefix(de.Name(), ".tmp") || !strings.HasSuffix(de.Name(), ".json") {
				t.Errorf("cache file %s %v", de.Name(), fi.Mode())
			}
		}
		want := memoryTools[0]
		b, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(want.Hash(), "sha256:")+".json"))
		if err != nil || !strings.Contains(string(b), `"name": "memory__create_entities"`) || !strings.Contains(string(b), `"prompt_version": "`+enrich.PromptVersion+`"`) {
			t.Errorf("entry of %s: %v\n%s", want.Name, err, b)
		}

		again, srv2 := newEnricher(t, provider, newScribe(t), dir)
		found2, err := again.EnrichMissing(ctxFor(t), memoryTools)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(srv2.Requests()); n != 0 || found2.Cached != len(memoryTools) || found2.Asked != 0 {
			t.Errorf("second run: %d requests, %d cached", n, found2.Cached)
		}
		if diff := cmp.Diff(found.Queries, found2.Queries); diff != "" {
			t.Errorf("cached queries differ (-asked +cached):\n%s", diff)
		}

		// The runtime's finder: the precompiled index lacks these tools'
		// enrichment; they are added as a tier with their queries.
		docs := make([]search.Doc, len(memoryTools))
		for i, tool := range memoryTools {
			docs[i] = search.Doc{Name: tool.Name, Description: tool.Description, Params: tool.Params}
		}
		base := search.FromTables(ptr(search.Build(docs).Tables()))
		if hits := base.Search("remember a person", 1); len(hits) > 0 && hits[0].Name == "memory__create_entities" {
			t.Fatalf("found before enrichment: %v", hits)
		}
		search.EnrichDocs(docs, found2.Queries)
		idx := base.With(docs...)
		if hits := idx.Search("remember a person", 3); len(hits) == 0 || hits[0].Name != "memory__create_entities" {
			t.Errorf("after enrichment: %v", hits)
		}
		if idx.Len() != len(memoryTools) {
			t.Errorf("index holds %d tools", idx.Len())
		}
	})
}

func ptr[T any](v T) *T { return &v }

// TestEnricherRemembersUnusable: a tool whose answers were unusable twice
// is not asked again with the same prompt; a tool whose requests failed
// (no answer) is.
func TestEnricherRemembersUnusable(t *testing.T) {
	dir := t.TempDir()
	s := newScribe(t)
	s.Break = func(tool sentTool, attempt int, rejected string) (map[string]any, string) {
		if tool.Name == "memory__read_graph" {
			return nil, "not json"
		}
		return nil, ""
	}
	srv := modeltest.NewServer(t)
	srv.Respond(func(r *modeltest.Request) modeltest.Turn {
		if tools, _ := sent(t, r); tools[0].Name == "memory__open_nodes" {
			return modeltest.Turn{Status: 503, Message: "overloaded"}
		}
		return s.Respond(r)
	})
	e := &enrich.Enricher{Model: newModel(t, "openai", srv), Dir: dir}
	found, err := e.EnrichMissing(ctxFor(t), memoryTools)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range found.Failed {
		failed = append(failed, f.Tool)
	}
	if !slices.Equal(failed, []string{"memory__open_nodes", "memory__read_graph"}) && !slices.Equal(failed, []string{"memory__read_graph", "memory__open_nodes"}) {
		t.Fatalf("failed %v", found.Failed)
	}
	if len(found.Queries) != len(memoryTools)-2 {
		t.Errorf("%d tools with queries", len(found.Queries))
	}

	before := len(srv.Requests())
	found, err = e.EnrichMissing(ctxFor(t), memoryTools)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	for _, r := range srv.Requests()[before:] {
		tools, _ := sent(t, r)
		asked = append(asked, tools[0].Name)
	}
	if !slices.Equal(asked, []string{"memory__open_nodes", "memory__open_nodes"}) || found.Unusable != 1 || found.Cached != len(memoryTools)-2 {
		t.Errorf("second run asked %v; unusable %d, cached %d", asked, found.Unusable, found.Cached)
	}
}

// TestEnricherRepairsBrokenEntry: an entry that does not read (cut short,
// another tool's, another version) is asked again and replaced.
func TestEnricherRepairsBrokenEntry(t *testing.T) {
	dir := t.TempDir()
	tool := memoryTools[0]
	path := filepath.Join(dir, strings.TrimPrefix(tool.Hash(), "sha256:")+".json")
	for _, broken := range []string{
		`{"version": 1, "prompt_version": "enrich-1", "name": "memory__create_entities", "hash": "` + tool.Hash() + `", "queries": ["cut`,
		`{"version": 1, "prompt_version": "enrich-1", "name": "other_tool", "hash": "` + tool.Hash() + `", "queries": ["a"]}`,
		`{"version": 9, "prompt_version": "enrich-1", "name": "memory__create_entities", "hash": "` + tool.Hash() + `", "queries": ["a"]}`,
		`{"version": 1, "prompt_version": "enrich-1", "name": "memory__create_entities", "hash": "` + tool.Hash() + `", "queries": [""]}`,
	} {
		if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
			t.Fatal(err)
		}
		e, srv := newEnricher(t, "openai", newScribe(t), dir)
		found, err := e.EnrichMissing(ctxFor(t), []enrich.Tool{tool})
		if err != nil || len(srv.Requests()) != 1 || len(found.Queries[tool.Name]) != 6 {
			t.Errorf("broken entry %s: err %v, %d requests, found %v", broken, err, len(srv.Requests()), found.Queries)
		}
	}
}

// TestEnricherDefaultDir: without Dir the cache is the user's
// $XDG_CACHE_HOME/toolgen/enrich.
func TestEnricherDefaultDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	e, _ := newEnricher(t, "anthropic", newScribe(t), "")
	if _, err := e.EnrichMissing(ctxFor(t), memoryTools[:1]); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(home, "toolgen", "enrich"))
	if err != nil || len(entries) != 1 {
		t.Errorf("cache: %v %v", entries, err)
	}
}

// TestEnricherConcurrentCalls: calls that overlap ask about each tool once
// in all; each tool's queries come back from exactly one call or the cache.
func TestEnricherConcurrentCalls(t *testing.T) {
	s := newScribe(t)
	e, _ := newEnricher(t, "openai", s, t.TempDir())
	var wg sync.WaitGroup
	results := make([]*enrich.Found, 6)
	for i := range results {
		wg.Go(func() {
			f, err := e.EnrichMissing(ctxFor(t), memoryTools)
			if err != nil {
				t.Error(err)
			}
			results[i] = f
		})
	}
	wg.Wait()
	for name, n := range s.Times() {
		if n != 1 {
			t.Errorf("%s asked %d times", name, n)
		}
	}
	if len(s.Times()) != len(memoryTools) {
		t.Errorf("%d tools asked, want %d", len(s.Times()), len(memoryTools))
	}
	found, _ := e.EnrichMissing(ctxFor(t), memoryTools)
	if found.Cached != len(memoryTools) {
		t.Errorf("after the calls, %d cached", found.Cached)
	}
}

// TestEnricherSharedCache: replicas with their own cache directories and
// one shared store ask the model once between them: the second replica
// takes the first's answers from the store (and keeps them on its disk).
func TestEnricherSharedCache(t *testing.T) {
	shared := store.NewMemory()
	first, srv := newEnricher(t, "openai", newScribe(t), filepath.Join(t.TempDir(), "r1"))
	first.Shared = shared
	found, err := first.EnrichMissing(ctxFor(t), memoryTools)
	if err != nil || found.Asked != len(memoryTools) || len(srv.Requests()) != len(memoryTools) {
		t.Fatalf("first replica: asked %d, %d requests, %v", found.Asked, len(srv.Requests()), err)
	}
	dir2 := filepath.Join(t.TempDir(), "r2")
	second, srv2 := newEnricher(t, "openai", newScribe(t), dir2)
	second.Shared = shared
	found2, err := second.EnrichMissing(ctxFor(t), memoryTools)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv2.Requests()); n != 0 || found2.Cached != len(memoryTools) || found2.Asked != 0 {
		t.Fatalf("second replica: %d requests, %d cached, %d asked; want all from the shared store", n, found2.Cached, found2.Asked)
	}
	if diff := cmp.Diff(found.Queries, found2.Queries); diff != "" {
		t.Errorf("shared queries differ (-asked +shared):\n%s", diff)
	}
	if entries, _ := os.ReadDir(dir2); len(entries) != len(memoryTools) {
		t.Errorf("the second replica kept %d entries on its disk, want %d", len(entries), len(memoryTools))
	}
}
