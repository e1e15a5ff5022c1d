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
	"math"
	"slices"
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

	// Queries is the tool's enrichment: requests a user or an assistant
	// might type when they need exactly this tool. They are searched as one
	// more field but not stored: Doc and Docs return them only for tools
	// added with With.
	Queries []string
}

// Hit is one ranked result.
type Hit struct {
	Name  string
	Score float64
}

// Index is an immutable search index over tool documents. It is safe for
// concurrent use.
//
// An index is one or more tiers of tables: the first is what Build or
// FromTables made (for an agent binary, the precompiled index), each later
// one holds documents added with With. Scores are computed as if all tiers
// were one index: IDF comes from the posting counts of every tier when the
// query runs, and a later tier's lengths are normalised against the
// averages of all tiers. A document replaced by a later tier is dead in
// its old one.
type Index struct {
	tiers []*tier
	size  int      // doc ids over all tiers, dead ones included
	dead  []uint64 // bit set of replaced doc ids; nil when none
	ndead int

	// bakedIDF marks tables whose weights already hold the IDF (the TF-IDF
	// variant of the retrieval evaluation).
	bakedIDF bool

	scratch sync.Pool // *searchState
}

// tier is one set of tables; its doc i has id first+i in the index.
type tier struct {
	t        *Tables
	first    int
	n        int
	docs     []Doc // the documents of a tier added with With, for merging
	nameless nameless
}

// FromTables wraps precompiled tables; it does no work proportional to the
// index size. The tables must not be modified afterwards.
func FromTables(t *Tables) *Index {
	n := max(count32(t.NameIndex)-1, 0)
	return &Index{tiers: []*tier{{t: t, n: n}}, size: n}
}

// Tables returns the data of the index's first tier (all of an index made
// by Build or FromTables), for emitting as Go source. The result shares
// memory with the index and must not be modified.
func (x *Index) Tables() Tables { return *x.tiers[0].t }

// Len is the number of documents.
func (x *Index) Len() int { return x.size - x.ndead }

// Doc returns the document of a tool by its exact name.
func (x *Index) Doc(name string) (Doc, bool) {
	d, ok := x.find(name)
	if !ok {
		return Doc{}, false
	}
	return x.doc(d), true
}

// Docs returns every document, sorted by name.
func (x *Index) Docs() []Doc {
	out := make([]Doc, 0, x.Len())
	for d := range x.size {
		if !x.isDead(d) {
			out = append(out, x.doc(d))
		}
	}
	if len(x.tiers) > 1 {
		slices.SortFunc(out, func(a, b Doc) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

func (x *Index) doc(d int) Doc {
	tr := x.tierOf(d)
	if tr.docs != nil {
		return tr.docs[d-tr.first]
	}
	t, i := tr.t, d-tr.first
	doc := Doc{
		Name:        packed(t.Names, t.NameIndex, i),
		Description: packed(t.Descriptions, t.DescriptionIndex, i),
		Category:    packed(t.Categories, t.CategoryIndex, i),
	}
	doc.Keywords = packedList(t.Keywords, t.KeywordIndex, t.DocKeywords, i)
	doc.Params = packedList(t.Params, t.ParamIndex, t.DocParams, i)
	return doc
}

// tierOf is the tier holding doc id d.
func (x *Index) tierOf(d int) *tier {
	tiers := x.tiers
	for len(tiers) > 1 && d < tiers[len(tiers)-1].first {
		tiers = tiers[:len(tiers)-1]
	}
	return tiers[len(tiers)-1]
}

// name is the name of doc id d.
func (x *Index) name(d int) string {
	tr := x.tierOf(d)
	return packed(tr.t.Names, tr.t.NameIndex, d-tr.first)
}

func (x *Index) isDead(d int) bool {
	return x.dead != nil && d/64 < len(x.dead) && x.dead[d/64]&(1<<(d%64)) != 0
}

// find looks a live name up, newest tier first, by binary search over each
// tier's sorted names.
func (x *Index) find(name string) (int, bool) {
	for k := len(x.tiers) - 1; k >= 0; k-- {
		tr := x.tiers[k]
		t := tr.t
		i := sort.Search(tr.n, func(i int) bool { return packed(t.Names, t.NameIndex, i) >= name })
		if i < tr.n && packed(t.Names, t.NameIndex, i) == name && !x.isDead(tr.first+i) {
			return tr.first + i, true
		}
	}
	return 0, false
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
	return x.search(query, limit, filter{keep: keep})
}

func (x *Index) search(query string, limit int, f filter) []Hit {
	st := x.state()
	x.lookUp(st, query)
	hits := x.rank(st, strings.TrimSpace(query), limit, f)
	x.scratch.Put(st)
	return hits
}

func (x *Index) state() *searchState {
	st, _ := x.scratch.Get().(*searchState)
	if st == nil || len(st.scores) != x.size {
		st = &searchState{scores: make([]float32, x.size), named: make([]uint16, x.size)}
	}
	return st
}

// searchState is the per-query scratch space, pooled so that a query does
// not allocate an accumulator per document. A doc's score and the count
// of its name words the query matched are kept in two arrays rather than
// one of pairs: picking the top k reads only the scores, half the memory.
type searchState struct {
	tk       tokenizer
	scores   []float32 // per doc, zero between queries
	named    []uint16  // per doc, zero between queries; at most 255 terms × 255 words
	touched  []int32   // docs with a non-zero score
	ids      []int32   // per distinct query term and tier: the term's id in the tier, -1 if absent
	idf      []float32 // per distinct query term
	postings int       // of all the terms
	top      []cand    // min-heap of the best candidates
}

// maxQueryTerms bounds the distinct terms of a query that are scored.
const maxQueryTerms = 255

// lookUp finds the distinct terms of query in every tier, in query order,
// and weighs each by its IDF over all tiers. Terms no tier has are left
// out; two terms are the same when they have the same ids.
func (x *Index) lookUp(st *searchState, query string) {
	nt := len(x.tiers)
	st.ids, st.idf, st.postings = st.ids[:0], st.idf[:0], 0
	st.tk.each(query, func(term []byte, _ int) {
		if len(st.idf) == maxQueryTerms {
			return
		}
		n := len(st.ids)
		df := 0
		for _, tr := range x.tiers {
			id, ok := tr.term(term)
			if !ok {
				id = -1
			} else {
				df += tr.postings(id)
			}
			st.ids = append(st.ids, id)
		}
		if df == 0 || st.seen(n, nt) {
			st.ids = st.ids[:n]
			return
		}
		idf := float32(1)
		if !x.bakedIDF {
			idf = bm25IDF(x.size, df)
		}
		st.idf = append(st.idf, idf)
		st.postings += df
	})
}

// seen reports whether the ids from n on, one per tier, are those of an
// earlier term.
func (st *searchState) seen(n, nt int) bool {
	if nt == 1 {
		return slices.Contains(st.ids[:n], st.ids[n])
	}
	for i := 0; i < n; i += nt {
		if slices.Equal(st.ids[i:i+nt], st.ids[n:]) {
			return true
		}
	}
	return false
}

type cand struct {
	doc   int32
	score float32
}

// above reports whether a ranks above b: higher score, then name order. In
// one tier doc ids are in name order.
func (x *Index) above(a, b cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if len(x.tiers) == 1 {
		return a.doc < b.doc
	}
	return x.name(int(a.doc)) < x.name(int(b.doc))
}

// rank ranks the docs matching st's terms that f lets through; exact is
// the trimmed query, which ranks first when it is a tool's name.
func (x *Index) rank(st *searchState, exact string, limit int, f filter) []Hit {
	nt := len(x.tiers)

	// Accumulate term weights. Terms are visited in query order and docs in
	// posting order, so the float sums are the same on every run. When the
	// postings outnumber the docs, every doc's accumulator is visited at
	// the end instead of a list of the touched ones: appending to that list
	// is a branch the processor cannot predict, per posting.
	dense := st.postings >= x.size
	st.touched = st.touched[:0]
	for i, idf := range st.idf {
		for k, tr := range x.tiers {
			id := st.ids[i*nt+k]
			if id < 0 {
				continue
			}
			t := tr.t
			lo, hi := int(u32(t.PostingIndex, int(id))), int(u32(t.PostingIndex, int(id)+1))
			// One slice per field up front keeps the bounds checks out of the loop.
			docs, weights, named := t.PostingDocs[4*lo:4*hi], t.PostingWeights[4*lo:4*hi], t.PostingNameWords[lo:hi]
			weights = weights[:len(docs)]
			scores, nm := st.scores[tr.first:tr.first+tr.n], st.named[tr.first:tr.first+tr.n]
			if dense && !tr.named(id) {
				for j := 0; j < len(named); j++ {
					scores[u32(docs, j)] += idf * f32(weights, j)
				}
				continue
			}
			if dense {
				for j := 0; j < len(named); j++ {
					d := u32(docs, j)
					scores[d] += idf * f32(weights, j)
					nm[d] += uint16(named[j])
				}
				continue
			}
			for j := 0; j < len(named); j++ {
				d := u32(docs, j)
				if scores[d] == 0 {
					st.touched = append(st.touched, int32(tr.first)+int32(d))
				}
				scores[d] += idf * f32(weights, j)
				nm[d] += uint16(named[j])
			}
		}
	}

	exactDoc, hasExact := x.find(exact)
	if hasExact && !f.has(x, exactDoc) {
		hasExact = false
	}
	k := limit
	if k <= 0 {
		k = x.size + 1
	}
	if hasExact {
		k--
	}

	// Keep the k best candidates in a min-heap whose root is the worst.
	// The name factor is at most 1, so a doc whose score is already below
	// the worst of a full heap stays out: most docs stop at that test.
	top := st.top[:0]
	if k > 0 && dense {
		top = x.scan(st, top, k, exactDoc, hasExact, f)
	} else if k > 0 {
		for _, d := range st.touched {
			if s := st.scores[d]; !(len(top) == k && s < top[0].score) {
				top = x.offer(top, k, d, s, st.named[d], exactDoc, hasExact, f)
			}
		}
	}
	if dense {
		clear(st.scores)
		clear(st.named)
	} else {
		for _, d := range st.touched {
			st.scores[d], st.named[d] = 0, 0
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
		hits[i] = Hit{Name: x.name(int(c.doc)), Score: float64(c.score)}
		last := len(top) - 1
		top[0] = top[last]
		top = top[:last]
		x.siftDown(top, 0)
	}
	if hasExact {
		// An exact name outranks everything; its score is lifted above the
		// best other hit so that results stay sorted by score.
		s := float64(0)
		tr := x.tierOf(exactDoc)
		k := slices.Index(x.tiers, tr)
		for i, idf := range st.idf {
			if id := st.ids[i*nt+k]; id >= 0 {
				s += float64(idf * tr.weight(id, exactDoc-tr.first))
			}
		}
		switch {
		case n > 1 && s <= hits[1].Score:
			s = hits[1].Score + 1
		case s <= 0: // a name of stop words only
			s = 1
		}
		hits[0] = Hit{Name: exact, Score: s}
	}
	return hits
}

// scan offers every doc with a score, in doc order. Scores are never
// negative, so their bits order them as the floats do: one unsigned
// comparison refuses both a zero score and one under the heap's worst.
func (x *Index) scan(st *searchState, top []cand, k int, exactDoc int, hasExact bool, f filter) []cand {
	least := uint32(1) // the bits of the lowest score worth offering
	for d, s := range st.scores {
		if math.Float32bits(s) >= least {
			top = x.offer(top, k, int32(d), s, st.named[d], exactDoc, hasExact, f)
			if len(top) == k {
				least = max(math.Float32bits(top[0].score), 1)
			}
		}
	}
	return top
}

// offer puts doc d with score s and named matched name words into the
// heap top of at most k candidates if it ranks there.
func (x *Index) offer(top []cand, k int, d int32, s float32, named uint16, exactDoc int, hasExact bool, f filter) []cand {
	c := cand{doc: d, score: s * x.specificity(int(d), named)}
	if len(top) == k && (c.score < top[0].score || !x.above(c, top[0])) {
		return top // most offers end here: the name factor took them under
	}
	if (hasExact && int(d) == exactDoc) || x.isDead(int(d)) {
		return top
	}
	if !f.has(x, int(d)) {
		return top
	}
	if len(top) < k {
		top = append(top, c)
		x.siftUp(top, len(top)-1)
	} else {
		top[0] = c
		x.siftDown(top, 0)
	}
	return top
}

// namePenalty discounts a tool per word of its name the query does not
// mention: of "acr_registry_list" and "acr_registry_repository_list", the
// query "list my container registries" means the first. Names are short
// summaries, so an unmatched name word marks a more specific tool. The
// value is measured on the toolret set (see eval_test.go).
var namePenalty float32 = 0.2

// specificity is the factor for doc d whose name words the query matched
// named times.
func (x *Index) specificity(d int, named uint16) float32 {
	words := x.tiers[0].t.NameWords
	if d >= len(words) {
		words, d = x.nameWords(d)
	}
	missing := int(words[d]) - int(named)
	if missing <= 0 {
		return 1
	}
	return 1 / (1 + namePenalty*float32(missing))
}

// nameWords is the NameWords table of doc id d's tier and d's index in it.
func (x *Index) nameWords(d int) (string, int) {
	tr := x.tierOf(d)
	return tr.t.NameWords, d - tr.first
}

func (x *Index) siftUp(h []cand, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !x.above(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (x *Index) siftDown(h []cand, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && x.above(h[l], h[r]) {
			m = r
		}
		if !x.above(h[i], h[m]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// postings is the number of docs of the tier holding term id.
func (tr *tier) postings(id int32) int {
	return int(u32(tr.t.PostingIndex, int(id)+1) - u32(tr.t.PostingIndex, int(id)))
}

// weight is the posting weight of term id in the tier's doc i, 0 if absent.
func (tr *tier) weight(id int32, i int) float32 {
	t := tr.t
	lo, hi := int(u32(t.PostingIndex, int(id))), int(u32(t.PostingIndex, int(id)+1))
	j := lo + sort.Search(hi-lo, func(j int) bool { return int(u32(t.PostingDocs, lo+j)) >= i })
	if j < hi && int(u32(t.PostingDocs, j)) == i {
		return f32(t.PostingWeights, j)
	}
	return 0
}

// Has reports whether the index holds a tool of this name and description,
// without building its Doc.
func (x *Index) Has(name, description string) bool {
	d, ok := x.find(name)
	if !ok {
		return false
	}
	tr := x.tierOf(d)
	return packed(tr.t.Descriptions, tr.t.DescriptionIndex, d-tr.first) == description
}
