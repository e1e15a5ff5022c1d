// Package redact scrubs secret values (resolved env() values) from text
// meant for people and models: errors, events, results of failed calls.
package redact

import (
	"net/url"
	"strings"
)

// Mark replaces a secret.
const Mark = "[redacted]"

// String replaces every secret in text, as written and in the escaped
// forms a URL gives it (a token in a path or query comes back escaped).
func String(text string, secrets []string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, form := range [...]string{s, url.PathEscape(s), url.QueryEscape(s)} {
			text = strings.ReplaceAll(text, form, Mark)
		}
	}
	return text
}
