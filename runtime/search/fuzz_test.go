package search_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// FuzzSearch builds an index from arbitrary text and checks the invariants
// of every answer: no panic, at most limit hits, positive scores ranked
// high to low then by name, an exact name first, the same answer from the
// index's tables.
func FuzzSearch(f *testing.F) {
	f.Add("registry_list\nList tasks.\nregistry_next\nNext task.", "registry list tasks", 3)
	f.Add("getHTTPServer\nÜnïcode straße\nx\n", "getHTTPServer", 0)
	f.Add("a\xff\xfeb\n\xc3\n", "\xff a", 1)
	f.Add("the\nof\n", "the", 2)
	f.Fuzz(func(t *testing.T, text, query string, limit int) {
		limit %= 50
		lines := strings.Split(text, "\n")
		var docs []search.Doc
		for i := 0; i+1 < len(lines); i += 2 {
			docs = append(docs, search.Doc{Name: lines[i], Description: lines[i+1], Params: strings.Fields(lines[i+1])})
		}
		x := search.Build(docs)
		hits := x.Search(query, limit)
		if limit > 0 && len(hits) > limit {
			t.Fatalf("%d hits for limit %d", len(hits), limit)
		}
		for i, h := range hits {
			if !(h.Score > 0) {
				t.Fatalf("hit %v without a positive score", h)
			}
			if i > 0 && (hits[i-1].Score < h.Score || hits[i-1].Score == h.Score && hits[i-1].Name > h.Name) {
				t.Fatalf("hits out of order: %v", hits)
			}
		}
		if _, ok := x.Doc(strings.TrimSpace(query)); ok && len(hits) > 0 && limit != 0 && hits[0].Name != strings.TrimSpace(query) {
			t.Fatalf("exact name %q not first: %v", query, hits)
		}
		tables := x.Tables()
		if diff := cmp.Diff(hits, search.FromTables(&tables).Search(query, limit)); diff != "" {
			t.Fatalf("tables answer differently (-built +tables)\n%s", diff)
		}
	})
}
