package hcl

import (
	"fmt"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"
)

// nameRe is the portable tool-name set: provider APIs reject dots and slashes.
var nameRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func checkName(kind, name string, rng hcl.Range) hcl.Diagnostics {
	if nameRe.MatchString(name) {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Invalid name",
		Detail:   fmt.Sprintf("The %s name %q must be 1 to 64 letters, digits, underscores or hyphens, the set every model provider accepts.", kind, name),
		Subject:  rng.Ptr(),
	}}
}

// packageName turns a directory base name into the spec's Go package name.
func packageName(base string) string { return PackageName(base, "spec") }

// PackageName makes a directory's base name a Go package name: lower case
// letters, digits and _, with prefix before it when that leaves nothing, a
// leading digit, a keyword or one of the avoided names.
func PackageName(base, prefix string, avoid ...string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) || token.IsKeyword(s) || slices.Contains(avoid, s) {
		s = prefix + s
	}
	return s
}

func sortBy[T any](s []T, key func(T) string) {
	slices.SortStableFunc(s, func(a, b T) int { return strings.Compare(key(a), key(b)) })
}
