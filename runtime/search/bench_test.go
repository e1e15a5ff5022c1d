package search_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/search"
	"github.com/toolgen-dev/toolgen/runtime/search/eval"
)

// benchSet returns the real toolret catalog and queries, or the seed docs
// and a few queries when the data set is absent.
func benchSet(b *testing.B) ([]search.Doc, []string) {
	dir := toolretDir
	if d := os.Getenv("TOOLRET_DIR"); d != "" {
		dir = d
	}
	set, err := eval.Load(dir)
	if err != nil {
		return seedDocs, []string{"registry list tasks", "read a file", "weather in Paris", "search code on github"}
	}
	qs := make([]string, len(set.Queries))
	for i, q := range set.Queries {
		qs[i] = q.Text
	}
	return set.Docs, qs
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
// cycling through the real queries. Besides the mean it reports the median
// query latency (p50-ns) and the 90th percentile (p90-ns).
func BenchmarkSearch(b *testing.B) {
	real, queries := benchSet(b)
	for _, n := range benchSizes {
		x := search.Build(synthetic(real, n))
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
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
		})
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
