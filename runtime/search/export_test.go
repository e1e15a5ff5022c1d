package search

// Hooks for the retrieval evaluation in eval_test.go (package search_test),
// which compares scoring variants that are not part of the API.

type Variant struct {
	Scheme  string // "bm25f", "bm25", "tfidf"
	K1      float64
	Weight  [numFields]float64 // name, description, keywords, category, params
	B       [numFields]float64
	Stem    int     // 0 none, 1 plurals, 2 plurals and verb endings
	Dual    float64 // weight of stem matches
	Penalty float64 // per unmatched name word
}

func DefaultVariant() Variant {
	c := defaultConfig
	v := Variant{K1: c.k1, Weight: c.weight, B: c.b, Stem: stemLevel}
	v.Dual = c.stem
	v.Penalty = float64(namePenalty)
	v.Scheme = map[scheme]string{schemeBM25F: "bm25f", schemeBM25: "bm25", schemeTFIDF: "tfidf"}[c.scheme]
	return v
}

// BuildVariant builds an index scored by v. The stemmer is global, so
// variants must not be built or searched concurrently; restore with the
// returned func.
func BuildVariant(docs []Doc, v Variant) (*Index, func()) {
	old, oldPenalty := stemLevel, namePenalty
	stemLevel, namePenalty = v.Stem, float32(v.Penalty)
	if v.Dual == 0 {
		v.Dual = 1 // the stem is the only form
	}
	cfg := config{k1: v.K1, weight: v.Weight, b: v.B, stem: v.Dual}
	cfg.scheme = map[string]scheme{"bm25f": schemeBM25F, "bm25": schemeBM25, "tfidf": schemeTFIDF}[v.Scheme]
	t := buildTables(uniqueSorted(docs), cfg, corpus{})
	x := FromTables(&t)
	x.bakedIDF = cfg.scheme == schemeTFIDF
	return x, func() { stemLevel, namePenalty = old, oldPenalty }
}
