package search

import "slices"

// With returns a new index holding the documents of x plus docs; a doc whose
// name is already indexed replaces the old one. x is unchanged.
//
// It does not rebuild x: docs become a new tier, normalised against the
// field lengths of all tiers, and the IDF of every term is taken over all
// tiers when a query runs, so scores stay those of one index up to the
// length averages. To keep queries from visiting many small tiers, a new
// tier is merged with the previous added one while that one is at most
// twice its size (a binary counter: an added document is re-indexed about
// log2 of the added count times). The first tier is never rebuilt.
func (x *Index) With(docs ...Doc) *Index {
	docs = uniqueSorted(docs)
	if len(docs) == 0 {
		return x
	}
	y := &Index{tiers: slices.Clone(x.tiers), size: x.size, bakedIDF: x.bakedIDF}
	if x.dead != nil {
		y.dead = slices.Clone(x.dead)
		y.ndead = x.ndead
	}
	for _, d := range docs {
		if id, ok := x.find(d.Name); ok {
			y.kill(id)
		}
	}
	for {
		last := len(y.tiers) - 1
		if last < 1 || y.tiers[last].n > 2*len(docs) {
			break
		}
		// Merge with the previous added tier: its live docs, then docs,
		// which win on equal names.
		prev := y.tiers[last]
		merged := make([]Doc, 0, prev.n+len(docs))
		for i, d := range prev.docs {
			if !y.isDead(prev.first + i) {
				merged = append(merged, d)
			}
		}
		docs = uniqueSorted(append(merged, docs...))
		y.tiers = y.tiers[:last]
		y.size = prev.first
		y.truncateDead(y.size)
	}
	var prior corpus
	for _, tr := range y.tiers {
		if len(tr.t.FieldLengths) != 4*numFields {
			continue // empty tables
		}
		prior.docs += tr.n
		for f := range numFields {
			prior.lens[f] += float64(f32(tr.t.FieldLengths, f)) * float64(tr.n)
		}
	}
	t := buildTables(docs, defaultConfig, prior)
	y.tiers = append(y.tiers, &tier{t: &t, first: y.size, n: len(docs), docs: docs})
	y.size += len(docs)
	return y
}

// kill marks doc id d as replaced.
func (x *Index) kill(d int) {
	for len(x.dead) <= d/64 {
		x.dead = append(x.dead, 0)
	}
	if x.dead[d/64]&(1<<(d%64)) == 0 {
		x.dead[d/64] |= 1 << (d % 64)
		x.ndead++
	}
}

// truncateDead forgets the dead marks of ids from n on, whose tiers were
// merged away.
func (x *Index) truncateDead(n int) {
	if x.dead == nil {
		return
	}
	for d := n; d < len(x.dead)*64; d++ {
		if x.dead[d/64]&(1<<(d%64)) != 0 {
			x.dead[d/64] &^= 1 << (d % 64)
			x.ndead--
		}
	}
	if words := (n + 63) / 64; words < len(x.dead) {
		x.dead = x.dead[:words]
	}
}
