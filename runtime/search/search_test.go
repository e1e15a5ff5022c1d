package search_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// seedDocs follows the tool set of the tool-search seed (go-ent's registry
// and spec tools) plus neighbours that share some of its words.
var seedDocs = []search.Doc{
	{Name: "registry_list", Description: "List tasks from the registry with optional filters by status, priority or change.", Category: "registry", Keywords: []string{"tasks", "backlog"}, Params: []string{"change_id", "priority", "status"}},
	{Name: "registry_next", Description: "Get the next recommended task(s) based on priority and dependencies.", Category: "registry", Keywords: []string{"task", "queue"}, Params: []string{"count"}},
	{Name: "registry_update", Description: "Update a task's status, priority or assignee.", Category: "registry", Params: []string{"status", "task_id"}},
	{Name: "registry_sync", Description: "Sync the registry from tasks.md files.", Category: "registry"},
	{Name: "spec_list", Description: "List specs, changes or archived changes of the project.", Category: "spec", Params: []string{"type"}},
	{Name: "read_file", Description: "Read a UTF-8 text file inside the workspace.", Category: "files", Keywords: []string{"open", "cat", "contents"}, Params: []string{"path"}},
	{Name: "write_file", Description: "Write a text file inside the workspace.", Category: "files", Params: []string{"content", "path"}},
	{Name: "github__search_code", Description: "Search code across GitHub repositories.", Params: []string{"q"}},
	{Name: "weather", Description: "Current weather for a city.", Params: []string{"city"}},
}

func names(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Name
	}
	return out
}

func sortedByScore(t *testing.T, hits []search.Hit) {
	t.Helper()
	for i := 1; i < len(hits); i++ {
		a, b := hits[i-1], hits[i]
		if a.Score < b.Score || (a.Score == b.Score && a.Name > b.Name) {
			t.Errorf("hits not ranked by score then name at %d: %v", i, hits)
		}
	}
}

func TestSeedRegistryListTasks(t *testing.T) {
	x := search.Build(seedDocs)
	hits := x.Search("registry list tasks", 10)
	got := names(hits)
	// The seed: the tools matching the keywords, registry_list and
	// registry_next among them, ranked by relevance.
	if len(got) == 0 || got[0] != "registry_list" || !slices.Contains(got, "registry_next") {
		t.Fatalf("Search(registry list tasks) = %v, want registry_list first and registry_next among the results", hits)
	}
	sortedByScore(t, hits)
	for _, h := range hits {
		if h.Score <= 0 {
			t.Errorf("hit %v has no positive score", h)
		}
	}
	if slices.Contains(got, "weather") {
		t.Errorf("unrelated tool in results: %v", got)
	}
}

func TestLimit(t *testing.T) {
	x := search.Build(seedDocs)
	all := x.Search("registry list tasks file", 0)
	if len(all) < 4 {
		t.Fatalf("want at least 4 matches, got %v", all)
	}
	sortedByScore(t, all)
	for limit := 1; limit <= len(all)+1; limit++ {
		got := x.Search("registry list tasks file", limit)
		want := all[:min(limit, len(all))]
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("limit %d: (-want +got)\n%s", limit, diff)
		}
	}
}

func TestExactNameFirst(t *testing.T) {
	x := search.Build(seedDocs)
	// "registry_update" also matches the other registry tools on
	// "registry"; the exact name must lead even if another scored higher.
	for _, q := range []string{"registry_update", "  weather "} {
		hits := x.Search(q, 3)
		if len(hits) == 0 || hits[0].Name != trim(q) {
			t.Errorf("Search(%q) = %v, want %s first", q, hits, trim(q))
		}
		sortedByScore(t, hits)
	}
	// A filtered-out exact name is not returned.
	hits := x.SearchFunc("registry_update", 3, func(n string) bool { return n != "registry_update" })
	if slices.Contains(names(hits), "registry_update") {
		t.Errorf("filtered exact name returned: %v", hits)
	}
}

func trim(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

func TestTieBreakByName(t *testing.T) {
	docs := []search.Doc{
		{Name: "c_tool", Description: "alpha"},
		{Name: "a_tool", Description: "alpha"},
		{Name: "b_tool", Description: "alpha"},
	}
	x := search.Build(docs)
	for i := 0; i < 5; i++ {
		got := names(x.Search("alpha", 2))
		if want := []string{"a_tool", "b_tool"}; !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestSearchFunc(t *testing.T) {
	x := search.Build(seedDocs)
	loadable := map[string]bool{"registry_next": true, "registry_update": true, "read_file": true}
	all := x.Search("registry list tasks", 0)
	var want []string
	for _, h := range all {
		if loadable[h.Name] {
			want = append(want, h.Name)
		}
	}
	hits := x.SearchFunc("registry list tasks", 10, func(n string) bool { return loadable[n] })
	if got := names(hits); len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// The filter applies before the limit.
	hits = x.SearchFunc("registry list tasks", 1, func(n string) bool { return n == "registry_update" })
	if got := names(hits); !slices.Equal(got, []string{"registry_update"}) {
		t.Errorf("got %v, want [registry_update]", got)
	}
}

func TestNoMatch(t *testing.T) {
	x := search.Build(seedDocs)
	for _, q := range []string{"", "   ", "the of and", "zzzz", "日本語"} {
		if hits := x.Search(q, 5); len(hits) != 0 {
			t.Errorf("Search(%q) = %v, want nothing", q, hits)
		}
	}
	for _, empty := range []*search.Index{search.Build(nil), search.FromTables(&search.Tables{})} {
		if hits := empty.Search("registry", 5); len(hits) != 0 || empty.Len() != 0 {
			t.Errorf("empty index: %v, len %d", hits, empty.Len())
		}
		if _, ok := empty.Doc("registry"); ok {
			t.Error("empty index has a doc")
		}
	}
}

func TestDocAndLen(t *testing.T) {
	x := search.Build(seedDocs)
	if x.Len() != len(seedDocs) {
		t.Fatalf("Len = %d, want %d", x.Len(), len(seedDocs))
	}
	for _, d := range seedDocs {
		got, ok := x.Doc(d.Name)
		if !ok {
			t.Fatalf("Doc(%q) missing", d.Name)
		}
		if diff := cmp.Diff(d, got); diff != "" {
			t.Errorf("Doc(%q) (-want +got)\n%s", d.Name, diff)
		}
	}
	if _, ok := x.Doc("nope"); ok {
		t.Error("Doc(nope) found")
	}
}

func TestDuplicateNamesLastWins(t *testing.T) {
	x := search.Build([]search.Doc{
		{Name: "t", Description: "old words"},
		{Name: "t", Description: "new words"},
	})
	if x.Len() != 1 {
		t.Fatalf("Len = %d", x.Len())
	}
	if d, _ := x.Doc("t"); d.Description != "new words" {
		t.Errorf("Doc = %+v", d)
	}
	if hits := x.Search("old", 5); len(hits) != 0 {
		t.Errorf("replaced text still found: %v", hits)
	}
}

func TestWith(t *testing.T) {
	base := search.Build(seedDocs[:4])
	if base.Len() != 4 {
		t.Fatalf("Len = %d", base.Len())
	}
	before := base.Search("weather city", 5)
	added := []search.Doc{seedDocs[8], {Name: "registry_next", Description: "Pop the next queued job.", Queries: []string{"what should I work on now"}}}
	grown := base.With(added...)

	// The original is unchanged.
	if diff := cmp.Diff(before, base.Search("weather city", 5)); diff != "" || base.Len() != 4 {
		t.Errorf("With changed the original index: len %d, (-want +got)\n%s", base.Len(), diff)
	}
	if d, _ := base.Doc("registry_next"); d.Description != seedDocs[1].Description {
		t.Errorf("original doc replaced: %+v", d)
	}
	// The new index has the added docs, the replaced one only in its new
	// form, and ranks like an index built from scratch.
	if grown.Len() != 5 {
		t.Errorf("Len = %d, want 5", grown.Len())
	}
	if d, _ := grown.Doc("registry_next"); d.Description != "Pop the next queued job." || len(d.Queries) != 1 {
		t.Errorf("Doc(registry_next) = %+v", d)
	}
	if hits := grown.Search("recommended dependencies", 5); len(hits) != 0 {
		t.Errorf("replaced text still found: %v", hits)
	}
	if got := names(grown.Search("what should I work on", 5)); !slices.Equal(got, []string{"registry_next"}) {
		t.Errorf("enrichment of an added doc not searched: %v", got)
	}
	want := search.Build(append(slices.Clone(seedDocs[:4]), added...))
	for _, q := range []string{"weather city", "registry list tasks", "queued job", "next", "registry_next", "registry sync update"} {
		if w, g := names(want.Search(q, 10)), names(grown.Search(q, 10)); !slices.Equal(w, g) {
			t.Errorf("With vs Build for %q: %v, want %v", q, g, w)
		}
	}
	if diff := cmp.Diff(names2(want.Docs()), names2(grown.Docs())); diff != "" {
		t.Errorf("Docs (-want +got)\n%s", diff)
	}
}

func names2(docs []search.Doc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.Name
	}
	return out
}

// TestWithManyTiers adds documents one at a time, which merges tiers, and
// checks every step against an index built from scratch.
func TestWithManyTiers(t *testing.T) {
	x := search.Build(nil)
	var all []search.Doc
	for i := range 40 {
		d := search.Doc{Name: fmt.Sprintf("tool_%02d", (i*7)%40), Description: fmt.Sprintf("word%d shared text %d", i%5, i)}
		if i%9 == 8 { // replace an earlier one
			d.Name = all[i/3].Name
		}
		all = append(all, d)
		x = x.With(d)
		want := search.Build(all)
		if x.Len() != want.Len() {
			t.Fatalf("step %d: Len = %d, want %d", i, x.Len(), want.Len())
		}
		for _, q := range []string{"shared", "word3 text", "tool_05", "word1"} {
			w, g := names(want.Search(q, 0)), names(x.Search(q, 0))
			slices.Sort(w)
			slices.Sort(g)
			if !slices.Equal(w, g) {
				t.Fatalf("step %d, %q: found %v, want %v", i, q, g, w)
			}
		}
		// Equal scores are ordered by name across tiers.
		sortedByScore(t, x.Search("shared", 0))
	}
}
func TestFromTablesRoundTrip(t *testing.T) {
	x := search.Build(seedDocs)
	tables := x.Tables()
	y := search.FromTables(&tables)
	for _, q := range []string{"registry list tasks", "read a file", "weather", "github search code"} {
		if diff := cmp.Diff(x.Search(q, 10), y.Search(q, 10)); diff != "" {
			t.Errorf("%q: (-built +tables)\n%s", q, diff)
		}
	}
	if diff := cmp.Diff(x.Docs(), y.Docs()); diff != "" {
		t.Errorf("docs (-built +tables)\n%s", diff)
	}
}

func TestConcurrentSearch(t *testing.T) {
	x := search.Build(seedDocs)
	want := x.Search("registry list tasks", 5)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				got := x.Search("registry list tasks", 5)
				if !slices.Equal(got, want) {
					t.Errorf("concurrent search: got %v", got)
					return
				}
				_ = x.SearchFunc(fmt.Sprint("file ", i), 3, func(string) bool { return true })
			}
		}()
	}
	wg.Wait()
}

func TestSearchAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop scratch space at random")
	}
	x := search.Build(seedDocs)
	x.Search("registry list tasks", 5) // warm the scratch pool
	allocs := testing.AllocsPerRun(100, func() { x.Search("registry list tasks", 5) })
	if allocs > 1 { // the result slice
		t.Errorf("Search allocates %.0f times per query, want 1", allocs)
	}
}

func TestTerms(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"getHTTPServer", []string{"get", "http", "~http", "server", "~server"}},
		{"github__search_code", []string{"github", "~github", "search", "~search", "code", "~code"}},
		{"fs.read-file/v2", []string{"fs", "read", "~read", "file", "~file", "v", "2"}},
		{"ipv4Address", []string{"ipv", "4", "address", "~address"}},
		{"List the secrets of a vault", []string{"list", "~list", "secrets", "~secret", "vault", "~vault"}},
		{"listing updated caches", []string{"listing", "~list", "updated", "~updat", "caches", "~cach"}},
		{"update updates updating cache", []string{"update", "~updat", "updates", "~updat", "updating", "~updat", "cache", "~cach"}},
		{"Ünïcode Straße", []string{"ünïcode", "straße"}},
		{"", nil},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, search.Terms(c.in)); diff != "" {
			t.Errorf("Terms(%q) (-want +got)\n%s", c.in, diff)
		}
	}
}

func TestNameSpecificity(t *testing.T) {
	// Both names hold every query word; the one with no extra word is the
	// general tool the query asks for.
	x := search.Build([]search.Doc{
		{Name: "acr_registry_list", Description: "List container registries in a subscription."},
		{Name: "acr_registry_repository_list", Description: "List repositories in container registries."},
	})
	hits := x.Search("list my container registries", 2)
	if len(hits) != 2 || hits[0].Name != "acr_registry_list" {
		t.Errorf("got %v, want acr_registry_list first", hits)
	}
}

func TestRelated(t *testing.T) {
	x := search.Build(seedDocs).With(search.Doc{Name: "calendar_event_create", Description: "Create a calendar event."})
	cases := []struct {
		query string
		want  []string
	}{
		{"regis", []string{"registry"}},                      // a word it begins
		{"weathers forecast", []string{"weather"}},           // a word that begins it
		{"calender", []string{"calendar"}},                   // one edit, in an added tier
		{"recomended", []string{"recommended"}},              // one edit
		{"regsitry", []string{"registry"}},                   // two edits for 8+ letters
		{"reg", []string{"registry"}},                        // 3 letters are enough to begin a word
		{"zzzzzz nothing here", nil},                         // no word comes near
		{"the a of", nil},                                    // stop words only
		{"file", []string{"file", "files"}},                  // the word itself, and longer ones
		{"tasks", []string{"task", "tasks"}},                 // task(s) starts it
		{"upd", []string{"update"}},                          //
		{"ca", nil},                                          // too short to begin anything
		{"weathr citty", []string{"city", "weather"}},        // several words, sorted
		{"Registry REGISTRY registry", []string{"registry"}}, // no repeats
	}
	for _, c := range cases {
		if got := x.Related(c.query); !slices.Equal(got, c.want) {
			t.Errorf("Related(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

func TestHas(t *testing.T) {
	x := search.Build(seedDocs[:2]).With(search.Doc{Name: "registry_next", Description: "Pop the next job."})
	for _, c := range []struct {
		name, desc string
		want       bool
	}{
		{"registry_list", seedDocs[0].Description, true},
		{"registry_list", "other", false},
		{"registry_next", "Pop the next job.", true},
		{"registry_next", seedDocs[1].Description, false}, // replaced
		{"nope", "", false},
	} {
		if got := x.Has(c.name, c.desc); got != c.want {
			t.Errorf("Has(%q, %q) = %v", c.name, c.desc, got)
		}
	}
}
