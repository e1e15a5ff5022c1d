package search_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/searcheval"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// benchSet returns the real toolret catalog and queries, or the seed docs
// and a few queries when the data set is absent.
func benchSet(b *testing.B) ([]search.Doc, []string) {
	dir := toolretDir
	if d := os.Getenv("TOOLRET_DIR"); d != "" {
		dir = d
	}
	set, err := searcheval.Load(dir)
	if err != nil {
		return seedDocs, []string{"registry list tasks", "read a file", "weather in Paris", "search code on github"}
	}
	qs := make([]string, len(set.Queries))
	for i, q := range set.Queries {
		qs[i] = q.Text
	}
	if set.LoadEnrichment(filepath.Join(dir, "enrichment.jsonl")) == nil {
		return set.Docs, qs
	}
	return set.Docs, qs
}

// enrich gives each doc six requests recombined from the enrichment of the
// real docs (or from their descriptions when they have none): real
// sentences with a few of the tool's own name words, so that the field
// has the length and word distribution of a model's enrichment. The seed
// is fixed.
func enrich(real, docs []search.Doc) []search.Doc {
	r := rand.New(rand.NewPCG(3, 4))
	var pool []string
	for _, d := range real {
		pool = append(pool, d.Queries...)
	}
	if len(pool) == 0 {
		for _, d := range real {
			pool = append(pool, d.Description)
		}
	}
	out := slices.Clone(docs)
	for i := range out {
		parts := strings.Split(out[i].Name, "_")
		qs := make([]string, 6)
		for j := range qs {
			qs[j] = pool[r.IntN(len(pool))] + " " + parts[r.IntN(len(parts))]
		}
		out[i].Queries = qs
	}
	return out
}

// tablesSize is the bytes of an index's tables: what index_gen.go holds,
// before quoting.
func tablesSize(t search.Tables) int {
	return len(t.Names) + len(t.NameIndex) + len(t.Descriptions) + len(t.DescriptionIndex) +
		len(t.Categories) + len(t.CategoryIndex) + len(t.Keywords) + len(t.KeywordIndex) + len(t.DocKeywords) +
		len(t.Params) + len(t.ParamIndex) + len(t.DocParams) + len(t.Terms) + len(t.TermIndex) +
		len(t.PostingIndex) + len(t.PostingDocs) + len(t.PostingWeights) + len(t.NameWords) + len(t.PostingNameWords) +
		len(t.FieldLengths)
}

// synthetic builds n tools by recombining the words of real ones: names from
// name parts, descriptions from spans of real descriptions, real parameter
// names. The seed is fixed, so every run benchmarks the same catalog.
func synthetic(real []search.Doc, n int) []search.Doc {
	r := rand.New(rand.NewPCG(1, 2))
	var nameParts, params []string
	var descs [][]string
	for _, d := range real {
		for _, p := range strings.FieldsFunc(d.Name, func(c rune) bool { return c == '_' || c == '-' }) {
			nameParts = append(nameParts, p)
		}
		descs = append(descs, strings.Fields(d.Description))
		params = append(params, d.Params...)
	}
	if len(params) == 0 {
		params = []string{"id"}
	}
	span := func() []string {
		w := descs[r.IntN(len(descs))]
		if len(w) == 0 {
			return nil
		}
		i := r.IntN(len(w))
		return w[i:min(len(w), i+5+r.IntN(15))]
	}
	docs := make([]search.Doc, n)
	for i := range docs {
		parts := make([]string, 2+r.IntN(3))
		for j := range parts {
			parts[j] = nameParts[r.IntN(len(nameParts))]
		}
		desc := append(span(), span()...)
		ps := make([]string, r.IntN(6))
		for j := range ps {
			ps[j] = params[r.IntN(len(params))]
		}
		docs[i] = search.Doc{
			Name:        fmt.Sprintf("%s_%d", strings.Join(parts, "_"), i),
			Description: strings.Join(desc, " "),
			Params:      ps,
		}
	}
	return docs
}

var benchSizes = []int{100, 1000, 10000}

// BenchmarkSearch is one tool_find query (top 10) on a prebuilt index,
// cycling through the real queries, over tools without and with
// enrichment. Besides the mean it reports the median query latency
// (p50-ns), the 90th percentile (p90-ns) and the size of the index's
// tables (index-B).
func BenchmarkSearch(b *testing.B) {
	real, queries := benchSet(b)
	for _, n := range benchSizes {
		plain := synthetic(real, n)
		for _, enriched := range []bool{false, true} {
			docs := plain
			if enriched {
				docs = enrich(real, plain)
			}
			x := search.Build(docs)
			b.Run(fmt.Sprintf("tools=%d/enriched=%v", n, enriched), func(b *testing.B) {
				b.ReportAllocs()
				var lat []time.Duration
				i := 0
				for b.Loop() {
					start := time.Now()
					x.Search(queries[i%len(queries)], 10)
					lat = append(lat, time.Since(start))
					i++
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds()), "p90-ns")
				b.ReportMetric(float64(tablesSize(x.Tables())), "index-B")
			})
		}
	}
}

// BenchmarkSearchBaselineScan is the baseline for BenchmarkSearch: no index,
// every query term looked for in every tool's lowercased text.
func BenchmarkSearchBaselineScan(b *testing.B) {
	real, queries := benchSet(b)
	for _, n := range benchSizes {
		docs := synthetic(real, n)
		texts := make([]string, len(docs))
		for i, d := range docs {
			texts[i] = strings.ToLower(d.Name + " " + d.Description + " " + strings.Join(d.Params, " "))
		}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				terms := strings.Fields(strings.ToLower(queries[i%len(queries)]))
				best, bestScore := -1, 0
				for d, text := range texts {
					s := 0
					for _, t := range terms {
						if strings.Contains(text, t) {
							s++
						}
					}
					if s > bestScore {
						best, bestScore = d, s
					}
				}
				_ = best
				i++
			}
		})
	}
}

// BenchmarkStartup compares making a ready index at start-up: Build from
// docs (what a binary without index_gen.go does) against FromTables over
// precompiled tables (what index_gen.go does), plus the first query, which
// is when a precompiled index touches its data.
func BenchmarkStartup(b *testing.B) {
	real, queries := benchSet(b)
	for _, n := range benchSizes {
		docs := synthetic(real, n)
		tables := search.Build(docs).Tables()
		b.Run(fmt.Sprintf("tools=%d/build", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				search.Build(docs).Search(queries[0], 10)
			}
		})
		b.Run(fmt.Sprintf("tools=%d/tables", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				search.FromTables(&tables).Search(queries[0], 10)
			}
		})
	}
}

// BenchmarkAddServer is adding the tools of one server (20 tools, as a
// server found at run time reports them) to an index of n tools: by
// rebuilding the whole index, as With did before tiers (the baseline), and
// with With.
func BenchmarkAddServer(b *testing.B) {
	real, _ := benchSet(b)
	for _, n := range benchSizes {
		docs := synthetic(real, n+20)
		base, server := docs[:n], docs[n:]
		for i := range server {
			server[i].Name = "late__" + server[i].Name
		}
		x := search.Build(base)
		b.Run(fmt.Sprintf("tools=%d/rebuild", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				search.Build(append(x.Docs(), server...))
			}
		})
		b.Run(fmt.Sprintf("tools=%d/with", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x.With(server...)
			}
		})
	}
}

// BenchmarkWith is adding one runtime-discovered tool to an index.
func BenchmarkWith(b *testing.B) {
	real, _ := benchSet(b)
	for _, n := range benchSizes {
		x := search.Build(synthetic(real, n))
		extra := search.Doc{Name: "late_tool", Description: "A tool found at run time.", Params: []string{"id"}}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x.With(extra)
			}
		})
	}
}

// BenchmarkFromTables is opening a precompiled index: what the var in
// index_gen.go does at package init. It does no work proportional to the
// index; the first query then reads the tables in place (BenchmarkStartup).
func BenchmarkFromTables(b *testing.B) {
	real, _ := benchSet(b)
	for _, n := range benchSizes {
		tables := search.Build(synthetic(real, n)).Tables()
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if search.FromTables(&tables).Len() != n {
					b.Fatal("wrong size")
				}
			}
		})
	}
}
