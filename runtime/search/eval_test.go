package search_test

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/searcheval"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

const toolretDir = "../../../shared/data/toolret"

func loadToolret(t testing.TB) *searcheval.Set {
	t.Helper()
	dir := toolretDir
	if d := os.Getenv("TOOLRET_DIR"); d != "" {
		dir = d
	}
	set, err := searcheval.Load(dir)
	if os.IsNotExist(err) {
		t.Skipf("toolret data not found at %s", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestRetrievalVariants prints the metrics of every scoring variant tried:
//
//	SEARCH_VARIANTS=1 go test -run RetrievalVariants -v ./runtime/search
//
// It asserts nothing: the quality gate is TestRetrievalQuality in package
// eval, on the default.
func TestRetrievalVariants(t *testing.T) {
	if os.Getenv("SEARCH_VARIANTS") == "" {
		t.Skip("set SEARCH_VARIANTS=1 to compare scoring variants")
	}
	set := loadToolret(t)
	const (
		N = 0 // field indexes, as in build.go
		D = 1
		K = 2
		C = 3
		P = 4
	)
	w := func(n, d, k, c, p float64) [7]float64 { return [7]float64{n, d, k, c, p, 0, 0} }
	variants := []struct {
		name string
		v    search.Variant
	}{
		{"tfidf name+desc", search.Variant{Scheme: "tfidf", Weight: w(1, 1, 1, 1, 0)}},
		{"tfidf name+desc+params", search.Variant{Scheme: "tfidf", Weight: w(1, 1, 1, 1, 1)}},
		{"tfidf name x2 +params", search.Variant{Scheme: "tfidf", Weight: w(2, 1, 1, 1, 1)}},
		{"bm25 name x2 (reference)", search.Variant{Scheme: "bm25", K1: 1.2, B: w(0.75, 0, 0, 0, 0), Weight: w(2, 1, 1, 1, 0)}},
		{"bm25 name x2 +params", search.Variant{Scheme: "bm25", K1: 1.2, B: w(0.75, 0, 0, 0, 0), Weight: w(2, 1, 1, 1, 1)}},
		{"bm25 name x2, stem plurals", search.Variant{Scheme: "bm25", K1: 1.2, B: w(0.75, 0, 0, 0, 0), Weight: w(2, 1, 1, 1, 0), Stem: 1}},
		{"bm25 name x2, stem light", search.Variant{Scheme: "bm25", K1: 1.2, B: w(0.75, 0, 0, 0, 0), Weight: w(2, 1, 1, 1, 0), Stem: 2}},
		{"bm25 name x2, surface+stem .5", search.Variant{Scheme: "bm25", K1: 1.2, B: w(0.75, 0, 0, 0, 0), Weight: w(2, 1, 1, 1, 0), Stem: 2, Dual: 0.5}},
		{"bm25f n3 k2 d1 p.5", search.Variant{Scheme: "bm25f", K1: 1.2, B: w(0.5, 0.75, 0.5, 0.5, 0.75), Weight: w(3, 1, 2, 1, 0.5)}},
		{"bm25f n3 k2 d1 p.5, stem light", search.Variant{Scheme: "bm25f", K1: 1.2, B: w(0.5, 0.75, 0.5, 0.5, 0.75), Weight: w(3, 1, 2, 1, 0.5), Stem: 2}},
		{"default", search.DefaultVariant()},
	}
	add := func(name string, v search.Variant) {
		variants = append(variants, struct {
			name string
			v    search.Variant
		}{name, v})
	}
	// A coarse sweep around the default, one knob at a time.
	for _, lead := range []float64{0, 1, 2, 3, 4} {
		v := search.DefaultVariant()
		v.Weight[5] = lead
		add(fmt.Sprintf("default, lead sentence %.1f", lead), v)
	}
	for _, b := range []float64{0, 0.5, 1} {
		v := search.DefaultVariant()
		v.B[5] = b
		add(fmt.Sprintf("default, lead b %.1f", b), v)
	}
	for _, p := range []float64{0, 0.1, 0.2, 0.3, 0.5} {
		v := search.DefaultVariant()
		v.Penalty = p
		add(fmt.Sprintf("default, name penalty %.1f", p), v)
	}
	for _, dual := range []float64{0.25, 0.5, 1} {
		v := search.DefaultVariant()
		v.Dual = dual
		add(fmt.Sprintf("default, surface+stem %.2f", dual), v)
	}
	for _, k1 := range []float64{0.9, 1.2, 1.6, 2.0} {
		v := search.DefaultVariant()
		v.K1 = k1
		add(fmt.Sprintf("default, k1 %.1f", k1), v)
	}
	for _, nw := range []float64{1, 2, 3, 5} {
		v := search.DefaultVariant()
		v.Weight[0] = nw
		add(fmt.Sprintf("default, name weight %.0f", nw), v)
	}
	for _, pw := range []float64{0, 0.25, 0.5, 1} {
		v := search.DefaultVariant()
		v.Weight[4] = pw
		add(fmt.Sprintf("default, params weight %.2f", pw), v)
	}
	for _, b := range []float64{0.25, 0.5, 0.75, 1} {
		v := search.DefaultVariant()
		v.B[0] = b
		add(fmt.Sprintf("default, name b %.2f", b), v)
		v = search.DefaultVariant()
		v.B[1] = b
		add(fmt.Sprintf("default, desc b %.2f", b), v)
		v = search.DefaultVariant()
		v.B[4] = b
		add(fmt.Sprintf("default, params b %.2f", b), v)
		v = search.DefaultVariant()
		v.B[0] = b
		v.B[1] = b
		add(fmt.Sprintf("default, name/desc b %.2f", b), v)
	}
	fmt.Printf("%-34s %6s %6s %6s   %s\n", "variant", "R@1", "R@5", "MRR10", "per source R@1/R@5")
	for _, tc := range variants {
		x, restore := search.BuildVariant(set.Docs, tc.v)
		all, by := searcheval.Run(set.Queries, searcheval.IndexRanker(x))
		restore()
		line := fmt.Sprintf("%-34s %6.3f %6.3f %6.3f  ", tc.name, all.R1, all.R5, all.MRR10)
		for src, r := range by {
			line += fmt.Sprintf(" %s %.3f/%.3f", src, r.R1, r.R5)
		}
		fmt.Println(line)
	}
	_ = []int{N, D, K, C, P}
}

// TestWithMatchesBuild adds most servers of the enriched toolret catalog
// one by one to an index of the rest, as the runtime does for servers
// without a lock entry, and compares the quality on both query sets with
// an index built from all at once.
func TestWithMatchesBuild(t *testing.T) {
	set, para := loadEnriched(t)
	byServer := map[string][]search.Doc{}
	var base []search.Doc
	for _, d := range set.Docs {
		server, _, ok := strings.Cut(d.Name, "__")
		if !ok { // Azure tools: group by service
			server, _, _ = strings.Cut(d.Name, "_")
		}
		byServer[server] = append(byServer[server], d)
	}
	servers := slices.Sorted(maps.Keys(byServer))
	for i, s := range servers {
		if i%4 == 0 {
			base = append(base, byServer[s]...)
			delete(byServer, s)
		}
	}
	x := search.Build(base)
	for _, s := range slices.Sorted(maps.Keys(byServer)) {
		x = x.With(byServer[s]...)
	}
	if x.Len() != len(set.Docs) {
		t.Fatalf("Len = %d, want %d", x.Len(), len(set.Docs))
	}
	built := search.Build(set.Docs)
	for name, queries := range map[string][]searcheval.Query{"toolret": set.Queries, "paraphrase": para} {
		want, _ := searcheval.Run(queries, searcheval.IndexRanker(built))
		got, _ := searcheval.Run(queries, searcheval.IndexRanker(x))
		t.Logf("%s: built %v\n  added %v", name, want, got)
		if math.Abs(got.R1-want.R1) > 0.01 || math.Abs(got.R5-want.R5) > 0.01 || math.Abs(got.MRR10-want.MRR10) > 0.01 {
			t.Errorf("%s: incremental index differs from a full build: %v, want %v", name, got, want)
		}
		// Query by query, the first tool is the same almost always.
		same := 0
		for _, q := range queries {
			a, b := built.Search(q.Text, 1), x.Search(q.Text, 1)
			if len(a) == len(b) && (len(a) == 0 || a[0].Name == b[0].Name) {
				same++
			}
		}
		t.Logf("%s: same first tool for %d of %d queries", name, same, len(queries))
		if float64(same) < 0.97*float64(len(queries)) {
			t.Errorf("%s: the first tool differs from a full build's for %d of %d queries", name, len(queries)-same, len(queries))
		}
	}
}

// paraphraseDir holds the paraphrase queries over the toolret catalog.
const paraphraseDir = "../../testdata/search/paraphrase"

// loadEnriched returns the toolret catalog with its enrichment, the toolret
// queries and the paraphrase queries.
func loadEnriched(t testing.TB) (*searcheval.Set, []searcheval.Query) {
	t.Helper()
	set := loadToolret(t).Clone()
	dir := toolretDir
	if d := os.Getenv("TOOLRET_DIR"); d != "" {
		dir = d
	}
	if err := set.LoadEnrichment(filepath.Join(dir, "enrichment.jsonl")); err != nil {
		t.Fatal(err)
	}
	para, err := searcheval.LoadQueries(filepath.Join(paraphraseDir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return set, para
}

// TestEnrichmentVariants prints the metrics of the enrichment field's
// weight and length normalisation on the toolret queries and the
// paraphrase set, the two sets they were chosen on:
//
//	SEARCH_VARIANTS=1 go test -run EnrichmentVariants -v ./runtime/search
func TestEnrichmentVariants(t *testing.T) {
	if os.Getenv("SEARCH_VARIANTS") == "" {
		t.Skip("set SEARCH_VARIANTS=1 to compare enrichment variants")
	}
	set, para := loadEnriched(t)
	const Q = 6 // the enrichment field, as in build.go
	fmt.Printf("%-24s %21s   %21s\n", "variant", "toolret R@1 R@5 MRR", "paraphrase R@1 R@5 MRR")
	row := func(name string, v search.Variant) {
		x, restore := search.BuildVariant(set.Docs, v)
		a, _ := searcheval.Run(set.Queries, searcheval.IndexRanker(x))
		p, _ := searcheval.Run(para, searcheval.IndexRanker(x))
		restore()
		fmt.Printf("%-24s %6.3f %6.3f %6.3f   %6.3f %6.3f %6.3f\n", name, a.R1, a.R5, a.MRR10, p.R1, p.R5, p.MRR10)
	}
	row("default", search.DefaultVariant())
	for _, w := range []float64{0, 0.5, 1, 1.5, 2, 3} {
		for _, b := range []float64{0.25, 0.5, 0.75, 1} {
			v := search.DefaultVariant()
			v.Weight[Q], v.B[Q] = w, b
			row(fmt.Sprintf("weight %.1f, b %.2f", w, b), v)
		}
	}
	for _, k1 := range []float64{0.9, 1.2, 1.6, 2.0} {
		v := search.DefaultVariant()
		v.K1 = k1
		row(fmt.Sprintf("k1 %.1f", k1), v)
	}
	for _, s := range []float64{0.25, 0.5, 1} {
		v := search.DefaultVariant()
		v.Dual = s
		row(fmt.Sprintf("stem weight %.2f", s), v)
	}
	for _, p := range []float64{0, 0.1, 0.2, 0.3} {
		v := search.DefaultVariant()
		v.Penalty = p
		row(fmt.Sprintf("name penalty %.1f", p), v)
	}
}

// TestTopKMatchesAll: the top k of a query (which skips docs that cannot
// enter the top k, and visits accumulators densely or through a list) are
// the first k of all its matches, with and without a keep filter (as a
// function and as an Allowed set), over one
// tier and over several with a replaced doc, on the enriched toolret
// catalog and both query sets.
func TestTopKMatchesAll(t *testing.T) {
	set, para := loadEnriched(t)
	var queries []string
	for _, q := range append(set.Queries, para...) {
		queries = append(queries, q.Text)
	}
	queries = append(queries, "acr_registry_list", "memory__create_entities") // exact names
	one := search.Build(set.Docs)
	var base, late []search.Doc
	for i, d := range set.Docs {
		if i%7 == 3 {
			late = append(late, d)
		} else {
			base = append(base, d)
		}
	}
	tiered := search.Build(base).With(late[:len(late)/2]...).With(late[len(late)/2:]...)
	tiered = tiered.With(search.Doc{Name: set.Docs[10].Name, Description: "replaced: show me my files"})
	odd := func(name string) bool { return len(name)%2 == 1 }
	allowed := map[*search.Index]*search.Allowed{one: one.Allow(odd), tiered: tiered.Allow(odd)}
	other := search.Build(set.Docs[:10]).Allow(odd)
	for name, x := range map[string]*search.Index{"one tier": one, "tiers": tiered} {
		for _, keep := range []func(string) bool{nil, odd} {
			for _, q := range queries {
				all := x.SearchFunc(q, 0, keep)
				for _, k := range []int{1, 3, 10} {
					got := x.SearchFunc(q, k, keep)
					want := all[:min(k, len(all))]
					if !slices.Equal(got, want) {
						t.Fatalf("%s, keep %v, %q, k %d:\n got %v\nwant %v", name, keep != nil, q, k, got, want)
					}
					if keep == nil {
						continue
					}
					if got := x.SearchAllowed(q, k, allowed[x]); !slices.Equal(got, want) {
						t.Fatalf("%s, allowed, %q, k %d:\n got %v\nwant %v", name, q, k, got, want)
					}
					// A set made by another index is used through its filter.
					if got := x.SearchAllowed(q, k, other); !slices.Equal(got, want) {
						t.Fatalf("%s, another index's allowed, %q, k %d:\n got %v\nwant %v", name, q, k, got, want)
					}
				}
			}
		}
	}
}
