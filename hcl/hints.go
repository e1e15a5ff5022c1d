package hcl

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"
)

// envVarRe is what shells and other tools' configs write for an
// environment variable: "${GITHUB_TOKEN}" or env.GITHUB_TOKEN, which HCL
// reads as a variable named GITHUB_TOKEN or env.
var (
	envVarRe  = regexp.MustCompile(`^(?:env\.)?([A-Za-z_][A-Za-z0-9_]*)$`)
	envAttrRe = regexp.MustCompile(`^\.([A-Za-z_][A-Za-z0-9_]*)`)
)

// addHints adds to each "Variables not allowed" or "Unknown variable"
// diagnostic the spelling that works: env("NAME"), read when the agent
// runs; and to each unsupported argument named as MCP host configs name
// it, the spec's name. The text is read from the file at the diagnostic's
// range.
func addHints(diags hcl.Diagnostics, files map[string]*hcl.File) {
	for _, d := range diags {
		if d.Subject == nil {
			continue
		}
		f := files[d.Subject.Filename]
		if f == nil || d.Subject.End.Byte > len(f.Bytes) || d.Subject.Start.Byte >= d.Subject.End.Byte {
			continue
		}
		if d.Summary == "Unsupported argument" || d.Summary == "Extraneous JSON object property" {
			foreignKeyHint(d, f.Bytes[d.Subject.Start.Byte:d.Subject.End.Byte])
			continue
		}
		if d.Summary != "Variables not allowed" && d.Summary != "Unknown variable" {
			continue
		}
		m := envVarRe.FindSubmatch(f.Bytes[d.Subject.Start.Byte:d.Subject.End.Byte])
		if m == nil {
			continue
		}
		name := string(m[1])
		if name == "env" {
			// the range covers the root only: env.NAME
			a := envAttrRe.FindSubmatch(f.Bytes[d.Subject.End.Byte:])
			if a == nil {
				continue
			}
			name = string(a[1])
		}
		d.Detail += fmt.Sprintf(" To read the environment variable %s when the agent runs, write env(%q) (inside a string: \"${env(%q)}\").", name, name, name)
	}
}

// foreignKeys are the names MCP host configs (Claude Desktop, Claude Code,
// VS Code, Cursor) use for a server's attributes, pasted into a spec.
var foreignKeys = map[string]string{"type": "transport", "serverUrl": "url", "httpUrl": "url"}

var keyRe = regexp.MustCompile(`^"?([A-Za-z_][A-Za-z0-9_-]*)"?`)

// foreignKeyHint suggests the spec's name for a key written as MCP host
// configs write it.
func foreignKeyHint(d *hcl.Diagnostic, text []byte) {
	m := keyRe.FindSubmatch(text)
	if m == nil {
		return
	}
	if want, ok := foreignKeys[string(m[1])]; ok {
		d.Detail += fmt.Sprintf(" Did you mean %q? MCP host configs call it %q; `toolgen import` converts a whole host config.", want, m[1])
	}
}
