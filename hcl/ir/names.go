package ir

import (
	"strings"
	"unicode"
)

// GoName is the exported CamelCase form of a spec name, the rule behind
// every GoName field: read_file → ReadFile, handoff-to → HandoffTo. A
// leading digit gets an X so the result is an identifier on its own.
func GoName(name string) string {
	var b strings.Builder
	upper := true
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) {
		s = "X" + s
	}
	return s
}
