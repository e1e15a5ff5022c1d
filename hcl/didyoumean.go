package hcl

import (
	"fmt"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
)

// didYouMean is didyoumean.Suggest (the rule the runtime uses too) as a
// sentence to append to a Detail, with a leading space, or "".
func didYouMean(given string, candidates []string) string {
	if s := didyoumean.Suggest(given, candidates); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}
