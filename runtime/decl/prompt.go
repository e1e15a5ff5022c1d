package decl

import (
	"regexp"
	"slices"
)

// placeholderRe finds the {argument} placeholders of a prompt text: the
// braces of REST URL templates around a name. Other braces are text.
var placeholderRe = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_-]*)\}`)

// Placeholders lists the argument names a prompt text uses, in order of
// first use.
func Placeholders(text string) []string {
	var out []string
	for _, m := range placeholderRe.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// FillPlaceholders replaces each {name} with args[name], literally; a name
// without a value becomes "".
func FillPlaceholders(text string, args map[string]string) string {
	return placeholderRe.ReplaceAllStringFunc(text, func(m string) string {
		return args[m[1:len(m)-1]]
	})
}
