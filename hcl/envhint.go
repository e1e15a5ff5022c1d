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

// envHints adds to each "Variables not allowed" or "Unknown variable"
// diagnostic the spelling that works: env("NAME"), read when the agent
// runs. The variable's text is read from the file at the diagnostic's
// range.
func envHints(diags hcl.Diagnostics, files map[string]*hcl.File) {
	for _, d := range diags {
		if d.Subject == nil || (d.Summary != "Variables not allowed" && d.Summary != "Unknown variable") {
			continue
		}
		f := files[d.Subject.Filename]
		if f == nil || d.Subject.End.Byte > len(f.Bytes) || d.Subject.Start.Byte >= d.Subject.End.Byte {
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
