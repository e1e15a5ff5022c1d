// Package searcheval measures tool-search quality on a labelled data set in the
// toolret format: catalog.json (an MCP tools/list result) and queries.jsonl
// ({"query", "relevant_groups", "source"} per line).
package searcheval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// Query is one labelled query. Any tool of a group counts as finding the
// group.
type Query struct {
	Text   string     `json:"query"`
	Groups [][]string `json:"relevant_groups"`
	Source string     `json:"source"`
}

// Set is a catalog with its labelled queries.
type Set struct {
	Docs    []search.Doc
	Queries []Query
}

// Load reads a toolret-format directory: catalog.json and queries.jsonl.
func Load(dir string) (*Set, error) {
	return LoadFiles(filepath.Join(dir, "catalog.json"), filepath.Join(dir, "queries.jsonl"))
}

// LoadFiles reads a catalog (an MCP tools/list result) and labelled
// queries from separate files, for query sets over another set's catalog.
func LoadFiles(catalog, queries string) (*Set, error) {
	data, err := os.ReadFile(catalog)
	if err != nil {
		return nil, err
	}
	docs, err := search.ParseCatalog(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", catalog, err)
	}
	qs, err := LoadQueries(queries)
	if err != nil {
		return nil, err
	}
	return &Set{Docs: docs, Queries: qs}, nil
}

// LoadQueries reads labelled queries, one JSON object a line.
func LoadQueries(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Query
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var q Query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if len(q.Groups) == 0 {
			return nil, fmt.Errorf("%s:%d: query has no relevant_groups", path, line)
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// LoadEnrichment reads enrichment JSON lines ({"name", "queries"}) and sets
// the Queries of the set's tools. A name that is not in the catalog is an
// error: the file belongs to another catalog.
func (s *Set) LoadEnrichment(path string) error {
	unknown, err := EnrichFile(s.Docs, path)
	if err == nil && len(unknown) > 0 {
		err = fmt.Errorf("%s: %d tools are not in the catalog, such as %q", path, len(unknown), unknown[0])
	}
	return err
}

// EnrichFile sets the Queries of docs from a file of enrichment JSON lines
// (search.ParseQueryLines) and returns the names it has that no doc has.
func EnrichFile(docs []search.Doc, path string) (unknown []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	queries, err := search.ParseQueryLines(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return search.EnrichDocs(docs, queries), nil
}

// Clone returns a copy of s whose docs can be changed on their own.
func (s *Set) Clone() *Set {
	return &Set{Docs: slices.Clone(s.Docs), Queries: s.Queries}
}

// Result holds the metrics averaged over queries.
type Result struct {
	Queries int
	R1      float64 // share of a query's groups found at rank 1
	R5      float64 // share of a query's groups found in the top 5
	MRR10   float64 // reciprocal rank of the first relevant tool in the top 10
}

func (r Result) String() string {
	return fmt.Sprintf("queries %d  R@1 %.3f  R@5 %.3f  MRR@10 %.3f", r.Queries, r.R1, r.R5, r.MRR10)
}

// Ranker returns the names of the best k tools for a query, best first.
type Ranker func(query string, k int) []string

// Run evaluates rank over the queries, overall and per source (sorted).
func Run(queries []Query, rank Ranker) (all Result, bySource map[string]Result) {
	sums := map[string]*Result{}
	add := func(key string, r1, r5, rr float64) {
		s := sums[key]
		if s == nil {
			s = &Result{}
			sums[key] = s
		}
		s.Queries++
		s.R1 += r1
		s.R5 += r5
		s.MRR10 += rr
	}
	for _, q := range queries {
		ranked := rank(q.Text, 10)
		r1 := recall(q.Groups, ranked, 1)
		r5 := recall(q.Groups, ranked, 5)
		rr := 0.0
		for i, name := range ranked {
			if inAnyGroup(q.Groups, name) {
				rr = 1 / float64(i+1)
				break
			}
		}
		add("", r1, r5, rr)
		add(q.Source, r1, r5, rr)
	}
	bySource = map[string]Result{}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := *sums[k]
		n := float64(s.Queries)
		s.R1, s.R5, s.MRR10 = s.R1/n, s.R5/n, s.MRR10/n
		if k == "" {
			all = s
		} else {
			bySource[k] = s
		}
	}
	return all, bySource
}

// recall is the share of groups with a tool in the first k names.
func recall(groups [][]string, ranked []string, k int) float64 {
	if len(ranked) > k {
		ranked = ranked[:k]
	}
	found := 0
	for _, g := range groups {
		for _, name := range ranked {
			if slices.Contains(g, name) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(groups))
}

func inAnyGroup(groups [][]string, name string) bool {
	for _, g := range groups {
		if slices.Contains(g, name) {
			return true
		}
	}
	return false
}

// IndexRanker ranks with a search index.
func IndexRanker(x *search.Index) Ranker {
	return func(q string, k int) []string {
		hits := x.Search(q, k)
		names := make([]string, len(hits))
		for i, h := range hits {
			names[i] = h.Name
		}
		return names
	}
}
