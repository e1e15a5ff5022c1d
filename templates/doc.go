package templates

import (
	"strings"
	"unicode"
)

// docLines turns user text — a description from the spec, or from an
// upstream server through the lock file — into doc comment lines that stay
// comments: control and format characters (NUL, CR, BOM …) are dropped,
// invalid UTF-8 is replaced, and no line starts with "/", since jennifer
// prints a comment starting with "//" or "/*" verbatim, which would let the
// text close the comment and write Go.
func docLines(text string) []string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.Map(func(r rune) rune {
			switch {
			case r == '\t':
				return ' '
			case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
				return -1
			}
			return r
		}, line)
		line = strings.TrimRight(line, " ")
		if strings.HasPrefix(line, "/") {
			line = " " + line
		}
		out = append(out, line)
	}
	return out
}
