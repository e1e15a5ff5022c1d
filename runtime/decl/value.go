package decl

import (
	"fmt"
	"strings"
)

// Resolve reads a Value's env() parts with getenv. A missing variable is
// an error naming it; the caller adds which server or tool needed it.
func (v Value) Resolve(getenv func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for _, p := range v {
		if p.Env == "" {
			b.WriteString(p.Lit)
			continue
		}
		val, ok := getenv(p.Env)
		if !ok {
			return "", fmt.Errorf("environment variable %s is not set", p.Env)
		}
		b.WriteString(val)
	}
	return b.String(), nil
}
