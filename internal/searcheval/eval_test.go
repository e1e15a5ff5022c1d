package searcheval_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/searcheval"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// Reference lexical baseline on the toolret set (its README): BM25 with
// split names, name counted twice. The index must beat it on both.
const (
	baselineR1 = 0.670
	baselineR5 = 0.841
)

// What the index reached on the toolret set before enrichment existed
// (R@1 0.7242, R@5 0.8648, MRR@10 0.8207; rounded down): tools without
// enrichment must not rank worse than that.
const (
	plainR1  = 0.724
	plainR5  = 0.864
	plainMRR = 0.820
)

// With the set's enrichment (enrichment.jsonl, six model-written requests
// per tool) the index must reach these on the toolret queries, and on the
// paraphrase set (testdata/search/paraphrase) these, well above what it
// reaches without enrichment.
const (
	enrichedR1  = 0.76
	enrichedR5  = 0.89
	enrichedMRR = 0.86

	paraphraseR1     = 0.75
	paraphraseR5     = 0.90
	paraphraseMRR    = 0.83
	paraphraseGainR1 = 0.30 // over the same queries without enrichment
)

const paraphraseDir = "../../testdata/search/paraphrase"

func toolretDir() string {
	if d := os.Getenv("TOOLRET_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "..", "shared", "data", "toolret")
}

// TestRetrievalQuality is the regression gate for search quality on the
// real catalog (707 MCP tools, 569 labelled queries).
func TestRetrievalQuality(t *testing.T) {
	set, err := searcheval.Load(toolretDir())
	if os.IsNotExist(err) {
		t.Skipf("toolret data not found: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Docs) != 707 || len(set.Queries) != 569 {
		t.Fatalf("loaded %d tools and %d queries, want 707 and 569", len(set.Docs), len(set.Queries))
	}
	all, by := searcheval.Run(set.Queries, searcheval.IndexRanker(search.Build(set.Docs)))
	t.Logf("all: %v", all)
	for src, r := range by {
		t.Logf("%s: %v", src, r)
	}
	if all.R1 < baselineR1 || all.R5 < baselineR5 {
		t.Errorf("retrieval regressed: R@1 %.3f (baseline %.3f), R@5 %.3f (baseline %.3f)", all.R1, baselineR1, all.R5, baselineR5)
	}
	if all.R1 < plainR1 || all.R5 < plainR5 || all.MRR10 < plainMRR {
		t.Errorf("retrieval without enrichment regressed: %v, want at least R@1 %.3f R@5 %.3f MRR@10 %.3f", all, plainR1, plainR5, plainMRR)
	}
}

// TestRetrievalQualityEnriched is the gate for enrichment: the toolret
// catalog with its stored queries, scored on the toolret queries and on the
// paraphrase set.
func TestRetrievalQualityEnriched(t *testing.T) {
	set, err := searcheval.Load(toolretDir())
	if os.IsNotExist(err) {
		t.Skipf("toolret data not found: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	para, err := searcheval.LoadQueries(filepath.Join(paraphraseDir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	plainPara, _ := searcheval.Run(para, searcheval.IndexRanker(search.Build(set.Docs)))
	if err := set.LoadEnrichment(filepath.Join(toolretDir(), "enrichment.jsonl")); err != nil {
		t.Fatal(err)
	}
	x := search.Build(set.Docs)
	all, _ := searcheval.Run(set.Queries, searcheval.IndexRanker(x))
	p, _ := searcheval.Run(para, searcheval.IndexRanker(x))
	t.Logf("toolret, enriched: %v", all)
	t.Logf("paraphrase: %v; enriched: %v", plainPara, p)
	if all.R1 < enrichedR1 || all.R5 < enrichedR5 || all.MRR10 < enrichedMRR {
		t.Errorf("toolret with enrichment: %v, want at least R@1 %.2f R@5 %.2f MRR@10 %.2f", all, enrichedR1, enrichedR5, enrichedMRR)
	}
	if p.R1 < paraphraseR1 || p.R5 < paraphraseR5 || p.MRR10 < paraphraseMRR || p.R1-plainPara.R1 < paraphraseGainR1 {
		t.Errorf("paraphrases with enrichment: %v (without: %v), want at least R@1 %.2f R@5 %.2f MRR@10 %.2f and R@1 %.2f above", p, plainPara, paraphraseR1, paraphraseR5, paraphraseMRR, paraphraseGainR1)
	}
}

func TestRunMetrics(t *testing.T) {
	queries := []searcheval.Query{
		// Two groups: one found at rank 1, the other at rank 3.
		{Text: "q1", Groups: [][]string{{"a"}, {"c", "x"}}, Source: "s1"},
		// Found at rank 2 only.
		{Text: "q2", Groups: [][]string{{"b"}}, Source: "s2"},
		// Never found.
		{Text: "q3", Groups: [][]string{{"z"}}, Source: "s2"},
	}
	ranked := map[string][]string{
		"q1": {"a", "b", "x", "d"},
		"q2": {"a", "b"},
		"q3": {"a", "b", "c", "d", "e", "z"},
	}
	all, by := searcheval.Run(queries, func(q string, k int) []string {
		r := ranked[q]
		return r[:min(k, len(r))]
	})
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// R@1: q1 0.5, q2 0, q3 0. R@5: q1 1, q2 1, q3 0. MRR: 1, 0.5, 1/6.
	if all.Queries != 3 || !near(all.R1, 0.5/3) || !near(all.R5, 2.0/3) || !near(all.MRR10, (1+0.5+1.0/6)/3) {
		t.Errorf("all = %+v", all)
	}
	if s := by["s2"]; s.Queries != 2 || !near(s.R5, 0.5) {
		t.Errorf("s2 = %+v", s)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := searcheval.Load(dir); !os.IsNotExist(err) {
		t.Errorf("missing files: err = %v, want not-exist", err)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("catalog.json", `{"tools":[{"name":"a","description":"x"}]}`)
	write("queries.jsonl", "{\"query\":\"x\",\"relevant_groups\":[[\"a\"]]}\n{bad\n")
	if _, err := searcheval.Load(dir); err == nil || !strings.Contains(err.Error(), "queries.jsonl:2") {
		t.Errorf("bad line: err = %v, want queries.jsonl:2", err)
	}
}
