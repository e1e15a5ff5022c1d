// Package search ranks tools for a query. It builds the index that toolgen
// precompiles into index_gen.go and indexes tools discovered at run time.
//
// Scoring is BM25F over a tool's fields: name (boosted), description, the
// description's lead sentence (counted again: it is the tool's summary),
// keywords, category and parameter names. Words count as written and, at
// half weight, by their light stem, so "secrets" finds "secret" but prefers
// "secrets". A tool loses a little per word of its name the query does not
// mention, which favours the general tool over a more specific namesake.
// The choice was measured on a real catalog; see eval_test.go.
//
// The whole index is a Tables value of plain data, so a precompiled index
// starts without rebuilding anything.
package search

import (
	"sort"
	"strings"
	"sync"
)

// Doc is one tool as the index sees it.
type Doc struct {
	Name        string
	Description string
	Category    string
	Keywords    []string
	Params      []string // top-level input parameter names
}

// Hit is one ranked result.
type Hit struct {
	Name  string
	Score float64
}

// Index is an immutable search index over tool documents. It is safe for
// concurrent use.
type Index struct {
	t       *Tables
	scratch sync.Pool // *searchState
}

// FromTables wraps precompiled tables; it does no work proportional to the
// index size. The tables must not be modified afterwards.
func FromTables(t *Tables) *Index {
	return &Index{t: t}
}

// Tables returns the index's data, for emitting as Go source. The result
// shares memory with the index and must not be modified.
func (x *Index) Tables() Tables { return *x.t }

// Len is the number of documents.
func (x *Index) Len() int {
	return max(count32(x.t.NameIndex)-1, 0)
}

// Doc returns the document of a tool by its exact name.
func (x *Index) Doc(name string) (Doc, bool) {
	i, ok := x.find(name)
	if !ok {
		return Doc{}, false
	}
	return x.doc(i), true
}

// Docs returns every document, sorted by name.
func (x *Index) Docs() []Doc {
	out := make([]Doc, x.Len())
	for i := range out {
		out[i] = x.doc(i)
	}
	return out
}

func (x *Index) doc(i int) Doc {
	t := x.t
	d := Doc{
		Name:        packed(t.Names, t.NameIndex, i),
		Description: packed(t.Descriptions, t.DescriptionIndex, i),
		Category:    packed(t.Categories, t.CategoryIndex, i),
	}
	d.Keywords = packedList(t.Keywords, t.KeywordIndex, t.DocKeywords, i)
	d.Params = packedList(t.Params, t.ParamIndex, t.DocParams, i)
	return d
}

// find looks a name up by binary search over the sorted names.
func (x *Index) find(name string) (int, bool) {
	t := x.t
	n := x.Len()
	i := sort.Search(n, func(i int) bool { return packed(t.Names, t.NameIndex, i) >= name })
	return i, i < n && packed(t.Names, t.NameIndex, i) == name
}

// With returns a new index holding the documents of x plus docs; a doc whose
// name is already indexed replaces the old one. x is unchanged. Statistics
// (document frequencies, average lengths) are recomputed over the whole set,
// so scores match an index built from scratch.
func (x *Index) With(docs ...Doc) *Index {
	all := make([]Doc, 0, x.Len()+len(docs))
	all = append(all, x.Docs()...)
	all = append(all, docs...)
	return Build(all)
}

// Search returns up to limit tools ranked by relevance to query, highest
// first; limit <= 0 means every matching tool. A tool whose name equals the
// trimmed query comes first. Ties are broken by name.
func (x *Index) Search(query string, limit int) []Hit {
	return x.SearchFunc(query, limit, nil)
}

// SearchFunc is Search over the tools for which keep reports true (all when
// keep is nil), such as the tools an agent may load.
func (x *Index) SearchFunc(query string, limit int, keep func(name string) bool) []Hit {
	st, _ := x.scratch.Get().(*searchState)
	if st == nil || len(st.acc) != x.Len() {
		st = &searchState{acc: make([]accum, x.Len())}
	}
	hits := x.search(st, query, limit, keep)
	x.scratch.Put(st)
	return hits
}

// searchState is the per-query scratch space, pooled so that a query does
// not allocate an accumulator per document.
type searchState struct {
	tk      tokenizer
	acc     []accum // per doc, zero between queries
	touched []int32 // docs with a non-zero score
	terms   []int32 // distinct query term ids
	top     []cand  // min-heap of the best candidates
}

// maxQueryTerms bounds the distinct terms of a query that are scored.
const maxQueryTerms = 255

// accum is one doc's running score and the number of its name words the
// query matched; together so that a posting touches one cache line.
type accum struct {
	score float32
	named uint32
}

type cand struct {
	doc   int32
	score float32
}

// above reports whether a ranks above b: higher score, then smaller doc id,
// which is name order.
func above(a, b cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc < b.doc
}

func (x *Index) search(st *searchState, query string, limit int, keep func(string) bool) []Hit {
	t := x.t
	st.terms = st.terms[:0]
	st.tk.each(query, func(term []byte, _ int) {
		id, ok := x.term(term)
		if !ok || len(st.terms) == maxQueryTerms {
			return
		}
		for _, seen := range st.terms {
			if seen == id {
				return
			}
		}
		st.terms = append(st.terms, id)
	})

	// Accumulate term weights. Terms are visited in query order and docs in
	// posting order, so the float sums are the same on every run.
	st.touched = st.touched[:0]
	for _, id := range st.terms {
		lo, hi := int(u32(t.PostingIndex, int(id))), int(u32(t.PostingIndex, int(id)+1))
		// One slice per field up front keeps the bounds checks out of the loop.
		docs, weights, named := t.PostingDocs[4*lo:4*hi], t.PostingWeights[4*lo:4*hi], t.PostingNameWords[lo:hi]
		weights = weights[:len(docs)]
		for i := 0; i < len(named); i++ {
			d := u32(docs, i)
			a := &st.acc[d]
			if a.score == 0 {
				st.touched = append(st.touched, int32(d))
			}
			a.score += f32(weights, i)
			a.named += uint32(named[i])
		}
	}

	exact, hasExact := x.find(strings.TrimSpace(query))
	if hasExact && keep != nil && !keep(packed(t.Names, t.NameIndex, exact)) {
		hasExact = false
	}
	k := limit
	if k <= 0 {
		k = len(st.touched) + 1
	}
	if hasExact {
		k--
	}

	// Keep the k best candidates in a min-heap whose root is the worst.
	top := st.top[:0]
	for _, d := range st.touched {
		a := &st.acc[d]
		c := cand{doc: d, score: a.score * x.specificity(int(d), a.named)}
		*a = accum{}
		if k <= 0 || (hasExact && int(d) == exact) {
			continue
		}
		if len(top) == k && !above(c, top[0]) {
			continue
		}
		if keep != nil && !keep(packed(t.Names, t.NameIndex, int(d))) {
			continue
		}
		if len(top) < k {
			top = append(top, c)
			siftUp(top, len(top)-1)
		} else {
			top[0] = c
			siftDown(top, 0)
		}
	}
	st.top = top

	n := len(top)
	if hasExact {
		n++
	}
	hits := make([]Hit, n)
	// Pop the heap from worst to best, filling from the back.
	for i := n - 1; len(top) > 0; i-- {
		c := top[0]
		hits[i] = Hit{Name: packed(t.Names, t.NameIndex, int(c.doc)), Score: float64(c.score)}
		last := len(top) - 1
		top[0] = top[last]
		top = top[:last]
		siftDown(top, 0)
	}
	if hasExact {
		// An exact name outranks everything; its score is lifted above the
		// best other hit so that results stay sorted by score.
		s := float64(0)
		for _, id := range st.terms {
			s += float64(x.weight(id, exact))
		}
		switch {
		case n > 1 && s <= hits[1].Score:
			s = hits[1].Score + 1
		case s <= 0: // a name of stop words only
			s = 1
		}
		hits[0] = Hit{Name: packed(t.Names, t.NameIndex, exact), Score: s}
	}
	return hits
}

// namePenalty discounts a tool per word of its name the query does not
// mention: of "acr_registry_list" and "acr_registry_repository_list", the
// query "list my container registries" means the first. Names are short
// summaries, so an unmatched name word marks a more specific tool. The
// value is measured on the toolret set (see eval_test.go).
var namePenalty float32 = 0.2

// specificity is the factor for doc d whose name words the query matched
// named times.
func (x *Index) specificity(d int, named uint32) float32 {
	missing := int(x.t.NameWords[d]) - int(named)
	if missing <= 0 {
		return 1
	}
	return 1 / (1 + namePenalty*float32(missing))
}

func siftUp(h []cand, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !above(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []cand, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && above(h[l], h[r]) {
			m = r
		}
		if !above(h[i], h[m]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// term finds a term id by binary search over the sorted vocabulary.
func (x *Index) term(term []byte) (int32, bool) {
	t := x.t
	lo, hi := 0, count32(t.TermIndex)-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if packed(t.Terms, t.TermIndex, m) < string(term) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < count32(t.TermIndex)-1 && packed(t.Terms, t.TermIndex, lo) == string(term) {
		return int32(lo), true
	}
	return 0, false
}

// weight is the posting weight of term id in doc d, 0 if absent.
func (x *Index) weight(id int32, d int) float32 {
	t := x.t
	lo, hi := int(u32(t.PostingIndex, int(id))), int(u32(t.PostingIndex, int(id)+1))
	i := lo + sort.Search(hi-lo, func(i int) bool { return int(u32(t.PostingDocs, lo+i)) >= d })
	if i < hi && int(u32(t.PostingDocs, i)) == d {
		return f32(t.PostingWeights, i)
	}
	return 0
}
