package runtime

import (
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// TestToolFindFilterShared: the tools a discovery agent may load reach
// tool_find as one set per pool snapshot and finder, made on the first
// query and shared by every session of the agent, so a query tests a bit
// per candidate instead of two map lookups; the set holds exactly the
// loadable tools, and a finder replaced by run-time enrichment gets its own.
func TestToolFindFilterShared(t *testing.T) {
	reg := catalogRegistry(400)
	reg.Agents = append(reg.Agents, decl.Agent{Name: "narrow", Discovery: true, Use: []decl.Use{{Kind: decl.UseGlob, Name: "list_*"}}})
	h := NewHost(nil)
	defer h.Close()
	s1, s2 := openCatalog(t, h, reg, "narrow"), openCatalog(t, h, reg, "narrow")
	defer s1.Close()
	defer s2.Close()

	hits := s1.Find("list the archive records of a project owner", 400)
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	for _, hit := range hits {
		if !strings.HasPrefix(hit.Name, "list_") {
			t.Errorf("hit %q is not loadable by the agent", hit.Name)
		}
	}
	st1, st2 := s1.st.Load(), s2.st.Load()
	snap := s1.pool.snap.Load()
	f1, f2 := st1.surf.Load().findFilter(snap), st2.surf.Load().findFilter(snap)
	if f1 != f2 {
		t.Error("two sessions of one agent made two filters")
	}
	n := 0
	for _, d := range snap.finder.Index().Docs() {
		if got := snap.finder.Index().SearchAllowed(d.Name, 1, f1); len(got) > 0 && got[0].Name == d.Name {
			n++
			if !strings.HasPrefix(d.Name, "list_") {
				t.Errorf("the filter lets %q through", d.Name)
			}
		}
	}
	if want := 400 / len(benchVerbs); n < want {
		t.Errorf("the filter lets %d tools through, want at least %d", n, want)
	}

	// Run-time enrichment replaces the snapshot's finder: a new filter.
	s1.pool.addQueries([]search.Doc{{Name: hits[0].Name, Description: hits[0].Description, Queries: []string{"tidy the shelves"}}})
	next := s1.pool.snap.Load()
	if next.finder == snap.finder {
		t.Fatal("enrichment did not replace the finder")
	}
	if f3 := st1.surf.Load().findFilter(next); f3 == f1 {
		t.Error("the filter of the old finder was used for the new one")
	}
	if got := s2.Find("tidy the shelves", 3); len(got) == 0 || got[0].Name != hits[0].Name {
		t.Errorf("after enrichment: %v, want %s first", got, hits[0].Name)
	}
}
