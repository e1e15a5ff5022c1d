// Package didyoumean suggests the known names nearest to a mistyped one, for
// "did you mean" hints in runtime errors, the agent CLI and the generator's
// diagnostics. It is the product's one suggestion rule.
package didyoumean

import (
	"sort"
	"strings"
)

// Nearest returns up to n candidates close to name, closest first, ties by
// name. A candidate is close when its edit distance (ignoring case) is at
// most max(2, len(name)/3), or when one name contains the other (3+ bytes).
func Nearest(name string, candidates []string, n int) []string {
	return nearest(name, candidates, n, false)
}

// Suggest returns the candidate nearest to name by Nearest's rule, other
// than name itself, or "" when none is close.
func Suggest(name string, candidates []string) string {
	if near := nearest(name, candidates, 1, true); len(near) > 0 {
		return near[0]
	}
	return ""
}

func nearest(name string, candidates []string, n int, others bool) []string {
	type scored struct {
		name string
		d    int
	}
	var out []scored
	lname := strings.ToLower(name)
	limit := max(2, len(name)/3)
	for _, c := range candidates {
		if others && c == name {
			continue
		}
		lc := strings.ToLower(c)
		d := Distance(lname, lc)
		if d <= limit || (len(lname) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc))) {
			out = append(out, scored{c, d})
		}
	}
	// sort, not slices: one shared stable sort in every binary rather than
	// one compiled for this type.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].d != out[j].d {
			return out[i].d < out[j].d
		}
		return out[i].name < out[j].name
	})
	names := make([]string, 0, min(n, len(out)))
	for i := 0; i < len(out) && i < n; i++ {
		names = append(names, out[i].name)
	}
	return names
}

// Distance is the Levenshtein distance over bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
