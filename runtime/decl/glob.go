package decl

import (
	"path"
	"strings"
)

// globMeta are path.Match's metacharacters.
const globMeta = `*?[\`

// IsGlob reports whether s has path.Match metacharacters.
func IsGlob(s string) bool { return strings.ContainsAny(s, globMeta) }

// Match matches name against a path.Match pattern; a malformed pattern
// (rejected by toolgen validate) matches nothing.
func Match(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return ok && err == nil
}

// MatchAny reports whether name is one of the names or matches one of the
// globs.
func MatchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == name || (IsGlob(p) && Match(p, name)) {
			return true
		}
	}
	return false
}

// LiteralPrefix is the part of a glob before its first metacharacter.
func LiteralPrefix(p string) string {
	if i := strings.IndexAny(p, globMeta); i >= 0 {
		return p[:i]
	}
	return p
}

// MatchURI is Match for resource URIs: "*" and "?" match "/" too, so that
// "repo://*" admits every URI of the scheme.
func MatchURI(pattern, uri string) bool {
	const slash = "\x00" // no URI or pattern holds a NUL byte
	return Match(strings.ReplaceAll(pattern, "/", slash), strings.ReplaceAll(uri, "/", slash))
}

// MatchAnyURI is MatchAny with MatchURI.
func MatchAnyURI(patterns []string, uri string) bool {
	for _, p := range patterns {
		if p == uri || (IsGlob(p) && MatchURI(p, uri)) {
			return true
		}
	}
	return false
}
