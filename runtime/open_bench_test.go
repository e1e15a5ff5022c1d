package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"testing"

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
// agent of 10,000 tools: the shared catalog must not slow it.
func BenchmarkToolFind10k(b *testing.B) {
	reg := catalogRegistry(10000)
	h := NewHost(slog.New(slog.DiscardHandler))
	defer h.Close()
	s := openCatalog(b, h, reg, "discovery")
	defer s.Close()
	ctx := context.Background()
	args := json.RawMessage(`{"query":"archive the audit records of a project"}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := s.Call(ctx, decl.ToolFind, args); !r.OK {
			b.Fatal(r.Error)
		}
	}
}
