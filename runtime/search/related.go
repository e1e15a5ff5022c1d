package search

import (
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
)

// Related returns the indexed words that partly match a word of query, for
// a query whose own words match no tool: words that a query word begins
// (3 letters or more: "calc" → "calculator"), words a query word begins
// with (4 letters or more: "screenshots" → "screen"), and words one edit
// away from a query word of 5 letters or more, two from one of 8 or more
// ("calender" → "calendar"). Sorted, without repeats. It scans the
// vocabulary, so it is for the rare empty answer, not every query.
func (x *Index) Related(query string) []string {
	var words []string
	var tk tokenizer
	tk.each(query, func(term []byte, kind int) {
		if kind == kindWord && !slices.Contains(words, string(term)) {
			words = append(words, string(term))
		}
	})
	var out []string
	for _, w := range words {
		for _, tr := range x.tiers {
			out = tr.related(w, out)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (tr *tier) related(w string, out []string) []string {
	t := tr.t
	n := count32(t.TermIndex) - 1
	if n <= 0 {
		return out
	}
	if len(w) >= 3 {
		lo, hi := 0, n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if packed(t.Terms, t.TermIndex, m) < w {
				lo = m + 1
			} else {
				hi = m
			}
		}
		for ; lo < n; lo++ {
			term := packed(t.Terms, t.TermIndex, lo)
			if !strings.HasPrefix(term, w) {
				break
			}
			out = append(out, term)
		}
	}
	for i := 4; i < len(w); i++ {
		if _, ok := tr.term([]byte(w[:i])); ok {
			out = append(out, w[:i])
		}
	}
	if len(w) >= 5 {
		edits := 1
		if len(w) >= 8 {
			edits = 2
		}
		for i := range n {
			term := packed(t.Terms, t.TermIndex, i)
			if term[0] == '~' || abs(len(term)-len(w)) > edits {
				continue
			}
			if editsWithin(w, term, edits) {
				out = append(out, term)
			}
		}
	}
	return out
}

func abs(n int) int { return max(n, -n) }

// editsWithin reports whether didyoumean.Distance(a, b) <= k, without
// allocating for words of up to 63 bytes and stopping once a whole row of
// the table is over k: Related runs it over the whole vocabulary.
func editsWithin(a, b string, k int) bool {
	if len(b) >= 64 {
		return didyoumean.Distance(a, b) <= k
	}
	var rows [2][64]int
	prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low > k {
			return false // distances only grow from a row's least
		}
		prev, cur = cur, prev
	}
	return prev[len(b)] <= k
}
