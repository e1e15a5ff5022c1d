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
