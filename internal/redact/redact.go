// Package redact scrubs secret values (resolved env() values) from text
// meant for people and models: errors, events and tool results. It is the
// one scrubbing rule of the runtime: every place that scrubs goes through it.
package redact

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Mark replaces a secret.
const Mark = "[redacted]"

// MinLen is the shortest value that is scrubbed. A shorter value (a flag
// like "1", a name like "prod") matches inside ordinary words, so
// scrubbing it would garble every text without hiding anything secret.
const MinLen = 8

// Short reports whether a value is too short to be scrubbed.
func Short(value string) bool { return len(value) < MinLen }

// Redactor replaces a fixed set of secrets. Build it once with New and use
// it for every text; a nil Redactor scrubs nothing and costs nothing.
type Redactor struct {
	forms []string // every written form of every secret, longest first
	r     *strings.Replacer
}

// New returns a Redactor for the secrets long enough to scrub, or nil when
// there is none.
func New(secrets []string) *Redactor {
	seen := map[string]bool{}
	var forms []string
	for _, s := range secrets {
		if Short(s) {
			continue
		}
		for _, f := range Forms(s) {
			if !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		return nil
	}
	// Longest first: a secret that contains another is replaced whole.
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Mark)
	}
	return &Redactor{forms: forms, r: strings.NewReplacer(pairs...)}
}

// Forms are the ways a secret shows up in text: as written, escaped for a
// URL path or query (a token in a URL comes back escaped in errors), and
// escaped inside a JSON string (a result that is JSON, such as a server
// printing its environment, escapes quotes, backslashes and control
// characters; Go's encoder also escapes <, > and &).
func Forms(secret string) []string {
	forms := []string{secret, url.PathEscape(secret), url.QueryEscape(secret)}
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(secret) == nil {
			quoted := bytes.TrimSpace(b.Bytes())
			forms = append(forms, string(quoted[1:len(quoted)-1]))
		}
	}
	return forms
}

// String replaces every secret in text. Text without any secret is
// returned as it is, without a copy.
func (r *Redactor) String(text string) string {
	if r == nil {
		return text
	}
	for _, f := range r.forms {
		if strings.Contains(text, f) {
			return r.r.Replace(text)
		}
	}
	return text
}

// String replaces every secret in text. It builds a Redactor each time:
// for occasional text such as an error; keep a Redactor for repeated use.
func String(text string, secrets []string) string {
	return New(secrets).String(text)
}
