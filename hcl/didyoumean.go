package hcl

import (
	"fmt"
	"sort"

	"github.com/agext/levenshtein"
)

// suggest returns the candidate nearest to given, or "" when none is close.
// Candidates are tried in sorted order so the answer does not depend on map
// iteration or declaration order.
func suggest(given string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestDist := "", 3 // like Terraform's didyoumean: distance < 3
	for _, c := range sorted {
		if c == given {
			continue
		}
		if d := levenshtein.Distance(given, c, nil); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean is suggest as a sentence to append to a Detail, with a leading
// space, or "".
func didYouMean(given string, candidates []string) string {
	if s := suggest(given, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}
