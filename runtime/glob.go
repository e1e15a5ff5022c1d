package runtime

import (
	"path"
	"strings"
)

// isGlob reports whether s has path.Match metacharacters.
func isGlob(s string) bool { return strings.ContainsAny(s, "*?[\\") }

// matchGlob matches name against a path.Match pattern; a malformed pattern
// (rejected by toolgen validate) matches nothing.
func matchGlob(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return ok && err == nil
}

// matchAny reports whether name matches any of the names or globs.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == name || (isGlob(p) && matchGlob(p, name)) {
			return true
		}
	}
	return false
}

// globLiteralPrefix is the part of a glob before its first metacharacter.
func globLiteralPrefix(p string) string {
	if i := strings.IndexAny(p, "*?[\\"); i >= 0 {
		return p[:i]
	}
	return p
}

// globMayReachServer reports whether a use glob could match a tool of a
// server not connected yet: its literal prefix and "<server><sep>" agree.
func globMayReachServer(glob, server, sep string) bool {
	lit, ns := globLiteralPrefix(glob), server+sep
	return strings.HasPrefix(lit, ns) || strings.HasPrefix(ns, lit)
}

// editDistance is the Levenshtein distance, for "did you mean" hints.
func editDistance(a, b string) int {
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

// nearest returns up to n candidates close to name: small edit distance or
// sharing a substring, closest first, ties by name.
func nearest(name string, candidates []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var out []scored
	lname := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(lname, lc)
		limit := max(2, len(name)/3)
		if d <= limit || (len(lname) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc))) {
			out = append(out, scored{c, d})
		}
	}
	sortFunc(out, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	names := make([]string, 0, min(n, len(out)))
	for i := 0; i < len(out) && i < n; i++ {
		names = append(names, out[i].name)
	}
	return names
}
