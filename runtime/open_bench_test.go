package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/searcheval"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// catalogRegistry is a registry of n declared tools, as the synthetic
// spec of templates' generate benchmarks declares them: half builtin
// (one fs_read policy), half REST with a URL template and a schema, and a
// precompiled search index. Agent "direct" offers every tool, agent
// "discovery" lets the model find and load them.
func catalogRegistry(n int) *Registry {
	reg := &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ResponseMaxBytes: 100000},
		Policies:  []decl.Policy{{Name: "ro", Builtin: "fs_read", AllowedPaths: []string{"."}}},
		Agents: []decl.Agent{
			{Name: "direct", Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}}},
			{Name: "discovery", Discovery: true, Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}}},
		},
	}
	docs := make([]search.Doc, n)
	for i := range n {
		t := decl.Tool{
			Name:        fmt.Sprintf("%s_%s_%05d", benchVerbs[i%len(benchVerbs)], benchWords[i%len(benchWords)], i),
			Description: fmt.Sprintf("%s the %s records of project %d, filtered by owner and status.", benchVerbs[i%len(benchVerbs)], benchWords[i%len(benchWords)], i),
			Category:    benchWords[i%7],
			Keywords:    []string{fmt.Sprintf("item%d", i%100), "record"},
		}
		if i%2 == 0 {
			t.Kind, t.Policy = decl.KindBuiltin, "ro"
		} else {
			t.Kind = decl.KindREST
			t.REST = &decl.REST{Method: "GET", URL: decl.Value{{Lit: "https://api.example.com/v1/items/{id}"}}}
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"owner":{"type":"string"}},"required":["id"]}`)
		}
		reg.Tools = append(reg.Tools, t)
		docs[i] = search.Doc{Name: t.Name, Description: t.Description, Category: t.Category, Keywords: t.Keywords, Params: search.SchemaParams(t.InputSchema)}
	}
	reg.Index = search.Build(docs)
	return reg
}

// openCatalog opens agent on h, as an HTTP client's session is opened.
func openCatalog(tb testing.TB, h *Host, reg *Registry, agent string) *Session {
	s, err := h.Open(context.Background(), reg, agent, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkOpenSession10k opens and closes a session of a 10,000-tool
// agent on a Host whose pool is already built, as every client after the
// first does: what one session costs on its own. retained-B/op is the
// heap still in use per open session after a GC, over 100 sessions
// held open at once.
//
//	go test ./runtime -run '^$' -bench OpenSession10k -benchmem
func BenchmarkOpenSession10k(b *testing.B) {
	reg := catalogRegistry(10000)
	for _, agent := range []string{"direct", "discovery"} {
		b.Run(agent, func(b *testing.B) {
			h := NewHost(slog.New(slog.DiscardHandler))
			defer h.Close()
			openCatalog(b, h, reg, agent).Close() // the pool and the agent's shared tables
			retained := retainedPerSession(b, h, reg, agent, 100)
			b.ReportAllocs()
			for b.Loop() {
				openCatalog(b, h, reg, agent).Close()
			}
			b.ReportMetric(float64(retained), "retained-B/op")
		})
	}
}

// retainedPerSession is the heap in use per session with n sessions of
// agent open at once, after a GC.
func retainedPerSession(tb testing.TB, h *Host, reg *Registry, agent string, n int) uint64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	open := make([]*Session, n)
	for i := range open {
		open[i] = openCatalog(tb, h, reg, agent)
	}
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	for _, s := range open {
		s.Close()
	}
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return (after.HeapAlloc - before.HeapAlloc) / uint64(n)
}

// BenchmarkToolFind10k is tool_find through Session.Call on a discovery
// agent of 10,000 tools, with two query sets: one synthetic query in the
// catalog's own words, and the 569 requests of the shared toolret set
// (realistic lengths and words, ../shared/data/toolret from the repo root;
// skipped when absent); each over the plain catalog and over one enriched
// as toolgen enrich does (six requests a tool). Besides the mean it
// reports the median (p50-ns) and 90th percentile (p90-ns) of a call.
func BenchmarkToolFind10k(b *testing.B) {
	queries := map[string][]string{"synthetic": {"archive the audit records of a project"}}
	var pool []string // enrichment sentences to recombine
	if set, err := searcheval.Load(toolretDir); err == nil {
		for _, q := range set.Queries {
			queries["toolret"] = append(queries["toolret"], q.Text)
		}
		if set.LoadEnrichment(filepath.Join(toolretDir, "enrichment.jsonl")) == nil {
			for _, d := range set.Docs {
				pool = append(pool, d.Queries...)
			}
		}
	}
	for _, enriched := range []bool{false, true} {
		reg := catalogRegistry(10000)
		if enriched {
			if pool == nil {
				b.Log("no toolret enrichment: enriched runs skipped")
				continue
			}
			reg.Index = search.Build(enrichDocs(reg.Index.Docs(), pool))
		}
		h := NewHost(slog.New(slog.DiscardHandler))
		s := openCatalog(b, h, reg, "discovery")
		for _, set := range []string{"synthetic", "toolret"} {
			qs := queries[set]
			if qs == nil {
				continue
			}
			args := make([]json.RawMessage, len(qs))
			for i, q := range qs {
				args[i], _ = json.Marshal(map[string]string{"query": q})
			}
			b.Run(fmt.Sprintf("queries=%s/enriched=%v", set, enriched), func(b *testing.B) {
				ctx := context.Background()
				var lat []time.Duration
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					start := time.Now()
					if r := s.Call(ctx, decl.ToolFind, args[i%len(args)]); !r.OK {
						b.Fatal(r.Error)
					}
					lat = append(lat, time.Since(start))
					i++
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds()), "p90-ns")
			})
		}
		s.Close()
		h.Close()
	}
}

// toolretDir is the shared toolret data set, from this package's directory.
const toolretDir = "../../shared/data/toolret"

// enrichDocs gives each doc six requests recombined from the real
// enrichment (pool) with one of the tool's own name words, so that the
// field has a model's length and word distribution. The seed is fixed.
func enrichDocs(docs []search.Doc, pool []string) []search.Doc {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range docs {
		parts := strings.Split(docs[i].Name, "_")
		docs[i].Queries = make([]string, 6)
		for j := range docs[i].Queries {
			docs[i].Queries[j] = pool[r.IntN(len(pool))] + " " + parts[r.IntN(len(parts))]
		}
	}
	return docs
}
