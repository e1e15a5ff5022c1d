package search

import (
	"hash/maphash"
	"strings"
	"sync"
)

// termTable finds a term's id in a tier by hash instead of by binary search
// over the packed vocabulary: a query looks up each of its words and their
// stems, some thirty lookups for a long request, each of which cost about
// fifteen string comparisons. It is made on the tier's first query, since
// precompiled tables carry only the sorted vocabulary, and costs four bytes
// a slot, two slots a term or fewer.
type termTable struct {
	once  sync.Once
	seed  maphash.Seed
	slots []int32 // term id + 1; 0 is an empty slot
	mask  uint32

	// unnamed marks the terms no document has in its name (a bit per term
	// id): their postings add nothing to the name-word counts, and most
	// words of a long request are such terms.
	unnamed []uint64
}

func (tt *termTable) build(t *Tables) {
	n := count32(t.TermIndex) - 1
	size := 8
	for size < 2*n {
		size *= 2
	}
	tt.seed = maphash.MakeSeed()
	tt.slots = make([]int32, size)
	tt.mask = uint32(size - 1)
	for id := range n {
		i := uint32(maphash.String(tt.seed, packed(t.Terms, t.TermIndex, id))) & tt.mask
		for tt.slots[i] != 0 {
			i = (i + 1) & tt.mask
		}
		tt.slots[i] = int32(id + 1)
	}
	tt.unnamed = make([]uint64, (n+63)/64)
	for id := range n {
		lo, hi := u32(t.PostingIndex, id), u32(t.PostingIndex, id+1)
		if strings.Trim(t.PostingNameWords[lo:hi], "\x00") == "" {
			tt.unnamed[id/64] |= 1 << (id % 64)
		}
	}
}

// named reports whether some document has term id in its name.
func (tr *tier) named(id int32) bool {
	tt := &tr.terms
	tt.once.Do(func() { tt.build(tr.t) })
	return tt.unnamed[id/64]&(1<<(id%64)) == 0
}

// term finds a term id in the tier's vocabulary.
func (tr *tier) term(term []byte) (int32, bool) {
	tt := &tr.terms
	tt.once.Do(func() { tt.build(tr.t) })
	t := tr.t
	for i := uint32(maphash.Bytes(tt.seed, term)) & tt.mask; ; i = (i + 1) & tt.mask {
		id := tt.slots[i]
		if id == 0 {
			return 0, false
		}
		if packed(t.Terms, t.TermIndex, int(id-1)) == string(term) {
			return id - 1, true
		}
	}
}
