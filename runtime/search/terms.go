package search

import (
	"strings"
	"sync"
)

// nameless marks, by term id, the terms no document of a tier has in its
// name: their postings add nothing to the name-word counts, and most words
// of a long request are such terms. Precompiled tables do not carry it, so
// it is made on the tier's first query, a bit per term.
type nameless struct {
	once sync.Once
	bits []uint64
}

func (nl *nameless) build(t *Tables) {
	n := count32(t.TermIndex) - 1
	nl.bits = make([]uint64, (n+63)/64)
	for id := range n {
		lo, hi := u32(t.PostingIndex, id), u32(t.PostingIndex, id+1)
		if strings.Trim(t.PostingNameWords[lo:hi], "\x00") == "" {
			nl.bits[id/64] |= 1 << (id % 64)
		}
	}
}

// named reports whether some document of the tier has term id in its name.
func (tr *tier) named(id int32) bool {
	nl := &tr.nameless
	nl.once.Do(func() { nl.build(tr.t) })
	return nl.bits[id/64]&(1<<(id%64)) == 0
}

// term finds a term id by binary search over the tier's sorted vocabulary.
func (tr *tier) term(term []byte) (int32, bool) {
	t := tr.t
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
