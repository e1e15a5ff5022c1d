package search

// Allowed is the documents of one index that a filter over names lets
// through, made once so that a search tests a bit per candidate instead of
// calling the filter: for a caller whose filter stays the same over many
// queries, such as the tools one agent may load. Candidates of a long query
// number in the hundreds, and a filter over names hashes each name.
type Allowed struct {
	x    *Index
	keep func(name string) bool
	bits []uint64 // by doc id
}

// Allow makes the set of x's documents keep lets through. It calls keep
// once per document.
func (x *Index) Allow(keep func(name string) bool) *Allowed {
	a := &Allowed{x: x, keep: keep, bits: make([]uint64, (x.size+63)/64)}
	for d := range x.size {
		if !x.isDead(d) && keep(x.name(d)) {
			a.bits[d/64] |= 1 << (d % 64)
		}
	}
	return a
}

// AllowFunc is the documents keep lets through, asked per candidate: for
// a filter used for a query or two.
func AllowFunc(keep func(name string) bool) *Allowed { return &Allowed{keep: keep} }

// SearchAllowed is SearchFunc over the documents of a (all when a is
// nil); an a made by another index's Allow, or by AllowFunc, is used
// through its filter.
func (x *Index) SearchAllowed(query string, limit int, a *Allowed) []Hit {
	f := filter{}
	if a != nil && a.x == x {
		f.bits = a.bits
	} else if a != nil {
		f.keep = a.keep
	}
	return x.search(query, limit, f)
}

// filter is what a search lets through: the docs of bits when set, else
// the names keep reports true for, else everything.
type filter struct {
	bits []uint64
	keep func(name string) bool
}

func (f filter) has(x *Index, d int) bool {
	switch {
	case f.bits != nil:
		return f.bits[d/64]&(1<<(d%64)) != 0
	case f.keep != nil:
		return f.keep(x.name(d))
	}
	return true
}
