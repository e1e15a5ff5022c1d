package search

import (
	"math"
	"slices"
	"sort"
)

// Fields of a document, in the order of config weights.
const (
	fieldName = iota
	fieldDescription
	fieldKeywords
	fieldCategory
	fieldParams
	fieldLead    // the first sentence of the description, again
	fieldQueries // the enrichment: requests a user might type for the tool
	numFields
)

// scheme is the scoring function of an index.
type scheme int

const (
	schemeBM25F scheme = iota // per-field length normalisation, then one saturation
	schemeBM25                // one bag of weighted field tokens, one length
	schemeTFIDF               // cosine-normalised log TF times IDF²
)

// config is what turns term counts into posting weights. Only the default is
// used outside the retrieval evaluation, which compares alternatives.
type config struct {
	scheme scheme
	k1     float64
	weight [numFields]float64 // field boost
	b      [numFields]float64 // length normalisation per field (BM25F)
	stem   float64            // weight of a stem match ("~" terms) relative to the word
}

// defaultConfig is the measured choice on the toolret set (569 queries over
// 707 MCP tools; SEARCH_VARIANTS=1 go test -run RetrievalVariants -v):
// BM25F with the name boosted, parameter names at half weight and the
// description's lead sentence counted again. The enrichment field was chosen
// on the same set and the paraphrase set of testdata/search/paraphrase; it
// changes nothing for tools without enrichment. Values are round numbers on
// a plateau, not fitted to the last digit.
var defaultConfig = config{
	scheme: schemeBM25F,
	k1:     1.2,
	weight: [numFields]float64{fieldName: 3, fieldDescription: 1, fieldKeywords: 2, fieldCategory: 1, fieldParams: 0.5, fieldLead: 2, fieldQueries: 1.5},
	b:      [numFields]float64{fieldName: 0.5, fieldDescription: 0.75, fieldKeywords: 0.5, fieldCategory: 0.5, fieldParams: 0.75, fieldLead: 0.5, fieldQueries: 0.5},
	stem:   0.5,
}

// Build indexes docs. A later doc replaces an earlier one of the same name.
func Build(docs []Doc) *Index {
	t := buildTables(uniqueSorted(docs), defaultConfig, corpus{})
	return FromTables(&t)
}

// docTerm is the count of one term in each field of one doc.
type docTerm struct {
	doc  int32
	term int32             // build-time id, before the vocabulary is sorted
	tf   [numFields]uint16 // occurrences per field, saturating
	name uint8             // name words this term stands for
}

// corpus is what other tables of the same index contribute to the average
// field lengths: their document count and summed field lengths.
type corpus struct {
	docs int
	lens [numFields]float64
}

// buildTables indexes docs, which must be sorted by name and unique. Field
// lengths are normalised against the averages over docs and prior.
func buildTables(docs []Doc, cfg config, prior corpus) Tables {
	n := len(docs)

	vocab := map[string]int32{}
	var words []string
	var entries []docTerm
	lens := make([][numFields]float32, n)
	var tk tokenizer
	var hits []docTerm // one doc's (term, field) counts, reused
	var at []int32     // by term: its entry's index in entries, if that is of this doc

	for d := range docs {
		hits = hits[:0]
		add := func(field int) func([]byte, int) {
			if cfg.weight[field] == 0 {
				return func([]byte, int) {}
			}
			return func(term []byte, kind int) {
				id, ok := vocab[string(term)]
				if !ok {
					id = int32(len(words))
					words = append(words, string(term))
					vocab[words[id]] = id
				}
				var e docTerm
				e.term = id
				e.tf[field] = 1
				if field == fieldName && (kind == kindStem || kind == kindWord && (stemLevel == 0 || !stemmable(term))) {
					e.name = 1
				}
				hits = append(hits, e)
				if kind == kindWord {
					lens[d][field]++
				}
			}
		}
		doc := &docs[d]
		tk.each(doc.Name, add(fieldName))
		tk.each(doc.Description, add(fieldDescription))
		for _, k := range doc.Keywords {
			tk.each(k, add(fieldKeywords))
		}
		tk.each(doc.Category, add(fieldCategory))
		for _, p := range doc.Params {
			tk.each(p, add(fieldParams))
		}
		tk.each(leadSentence(doc.Description), add(fieldLead))
		for _, q := range doc.Queries {
			tk.each(q, add(fieldQueries))
		}
		// One entry per term of the doc, in order of first occurrence:
		// only each term's postings need an order (by doc), and merging
		// through at is linear where sorting the hits was not.
		first := int32(len(entries))
		for _, h := range hits {
			for int(h.term) >= len(at) {
				at = append(at, -1)
			}
			j := at[h.term]
			if j < first {
				j = int32(len(entries))
				at[h.term] = j
				entries = append(entries, docTerm{doc: int32(d), term: h.term})
			}
			e := &entries[j]
			for f := range e.tf {
				if e.tf[f] < math.MaxUint16 {
					e.tf[f] += h.tf[f]
				}
			}
			e.name = satAdd(e.name, h.name)
		}
	}

	// Corpus statistics: document frequencies for the IDF of the TF-IDF
	// variant (BM25 weights leave IDF to search time), average lengths.
	df := make([]int, len(words))
	for _, e := range entries {
		df[e.term]++
	}
	var own, avg [numFields]float64
	for d := range lens {
		for f := range own {
			own[f] += float64(lens[d][f])
		}
	}
	var avgFlat float64
	for f := range avg {
		if all := n + prior.docs; all > 0 {
			avg[f] = (own[f] + prior.lens[f]) / float64(all)
		}
		avgFlat += cfg.weight[f] * avg[f]
	}
	idf := func(term int32) float64 {
		return math.Log(float64(n+1)/float64(df[term]+1)) + 1
	}

	weights := make([]float32, len(entries))
	for i, e := range entries {
		w := termWeight(cfg, e, lens[e.doc], avg, avgFlat)
		if cfg.scheme == schemeTFIDF {
			w *= idf(e.term)
		}
		if words[e.term][0] == '~' {
			w *= cfg.stem
		}
		weights[i] = float32(w)
	}
	if cfg.scheme == schemeTFIDF {
		cosineNormalise(entries, weights, n, idf)
	}
	for i := range weights {
		// Search finds a doc's first posting by its zero score.
		weights[i] = max(weights[i], math.SmallestNonzeroFloat32)
	}

	// Sort the vocabulary and lay postings out term by term, docs in order.
	order := make([]int32, len(words))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(i, j int) bool { return words[order[i]] < words[order[j]] })
	rank := make([]int32, len(words))
	for r, id := range order {
		rank[id] = int32(r)
	}
	start := make([]uint32, len(words)+1)
	for _, e := range entries {
		start[rank[e.term]+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	docIDs := make([]uint32, len(entries))
	postWeights := make([]float32, len(entries))
	postNamed := make([]byte, len(entries))
	nameWords := make([]byte, n)
	for d := range lens {
		nameWords[d] = uint8(min(lens[d][fieldName], 255))
	}
	next := slices.Clone(start[:len(words)])
	for i, e := range entries { // entries are in doc order
		r := rank[e.term]
		p := next[r]
		next[r]++
		docIDs[p] = uint32(e.doc)
		postWeights[p] = weights[i]
		postNamed[p] = e.name
	}
	fieldLens := make([]float32, numFields)
	for f := range fieldLens {
		if n > 0 {
			fieldLens[f] = float32(own[f] / float64(n))
		}
	}
	t := Tables{
		Version:          TablesVersion,
		PostingIndex:     u32s(start),
		PostingDocs:      u32s(docIDs),
		PostingWeights:   f32s(postWeights),
		PostingNameWords: string(postNamed),
		NameWords:        string(nameWords),
		FieldLengths:     f32s(fieldLens),
	}
	terms := newPacker()
	for _, id := range order {
		terms.add(words[id])
	}
	t.Terms, t.TermIndex = terms.strings()

	names, descs, cats := newPacker(), newPacker(), newPacker()
	kws, params := newPacker(), newPacker()
	docKeywords, docParams := appendU32(nil, 0), appendU32(nil, 0)
	for _, d := range docs {
		names.add(d.Name)
		descs.add(d.Description)
		cats.add(d.Category)
		for _, k := range d.Keywords {
			kws.add(k)
		}
		for _, p := range d.Params {
			params.add(p)
		}
		docKeywords = appendU32(docKeywords, kws.count())
		docParams = appendU32(docParams, params.count())
	}
	t.DocKeywords, t.DocParams = string(docKeywords), string(docParams)
	t.Names, t.NameIndex = names.strings()
	t.Descriptions, t.DescriptionIndex = descs.strings()
	t.Categories, t.CategoryIndex = cats.strings()
	t.Keywords, t.KeywordIndex = kws.strings()
	t.Params, t.ParamIndex = params.strings()
	return t
}

// termWeight is a term's contribution to a doc's score under cfg, before
// the term's IDF.
func termWeight(cfg config, e docTerm, lens [numFields]float32, avg [numFields]float64, avgFlat float64) float64 {
	switch cfg.scheme {
	case schemeBM25:
		var tf, l float64
		for f := range e.tf {
			tf += cfg.weight[f] * float64(e.tf[f])
			l += cfg.weight[f] * float64(lens[f])
		}
		norm := 1 - cfg.b[0] + cfg.b[0]*l/avgFlat
		return tf * (cfg.k1 + 1) / (tf + cfg.k1*norm)
	case schemeTFIDF:
		var tf float64
		for f := range e.tf {
			tf += cfg.weight[f] * float64(e.tf[f])
		}
		return 1 + math.Log(tf)
	}
	var tf float64
	for f := range e.tf {
		if e.tf[f] == 0 {
			continue
		}
		norm := 1 - cfg.b[f] + cfg.b[f]*float64(lens[f])/avg[f]
		tf += cfg.weight[f] * float64(e.tf[f]) / norm
	}
	return tf * (cfg.k1 + 1) / (tf + cfg.k1)
}

// bm25IDF is the IDF of a term in df of n documents.
func bm25IDF(n, df int) float32 {
	return float32(math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5)))
}

// cosineNormalise divides each doc's TF-IDF vector by its length and
// multiplies by IDF once more, the query side's weight, so that summing
// posting weights over query terms gives the cosine ranking.
func cosineNormalise(entries []docTerm, w []float32, n int, idf func(int32) float64) {
	norm := make([]float64, n)
	for i, e := range entries {
		norm[e.doc] += float64(w[i]) * float64(w[i])
	}
	for i, e := range entries {
		w[i] = float32(float64(w[i]) / math.Sqrt(norm[e.doc]) * idf(e.term))
	}
}

func satAdd(a, b uint8) uint8 {
	if a > 255-b {
		return 255
	}
	return a + b
}

// leadSentence is the description up to the end of its first sentence: a
// tool's summary, where later sentences often name what it is not for.
func leadSentence(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			return s[:i]
		case '.', '!', '?':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' {
				return s[:i]
			}
		}
	}
	return s
}

// uniqueSorted sorts docs by name; of several docs with one name the last
// wins. Docs without a name are dropped.
func uniqueSorted(in []Doc) []Doc {
	docs := make([]Doc, 0, len(in))
	for _, d := range in {
		if d.Name != "" {
			docs = append(docs, d)
		}
	}
	// sort.SliceStable, not slices.SortStableFunc: the generic one compiles
	// the whole stable sort again for each element type (about 7 KB of
	// every agent binary each), the reflective one is shared.
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].Name < docs[j].Name })
	out := docs[:0]
	for i, d := range docs {
		if i+1 < len(docs) && docs[i+1].Name == d.Name {
			continue
		}
		out = append(out, d)
	}
	return out
}
