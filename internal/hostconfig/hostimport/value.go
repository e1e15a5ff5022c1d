package hostimport

import (
	"regexp"
	"strings"
	"unicode"
)

// A piece of a host value as written: literal text or a ${…} reference.
type piece struct {
	lit string
	ref *ref
}

type refKind int

const (
	refEnv    refKind = iota // ${env:X}, ${X}, ${X:-default}
	refInput                 // ${input:ID} (VS Code)
	refEditor                // ${workspaceFolder}, ${userHome} … (editors), anything else
)

type ref struct {
	kind       refKind
	name       string // variable or input id; the whole text for editor variables
	hasDefault bool   // ${X:-default}
	def        string // the default: kept as env("X", "default") unless it looks like a credential
	raw        string // as written, for messages
}

// envNameRe is what env("NAME") accepts.
var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// editorVars are the editors' own variables (VS Code's and Cursor's),
// which look like ${NAME} but are not the environment.
var editorVars = map[string]bool{
	"workspaceFolder": true, "workspaceFolderBasename": true, "workspaceRoot": true,
	"userHome": true, "pathSeparator": true, "/": true, "cwd": true, "execPath": true,
	"file": true, "fileBasename": true, "fileBasenameNoExtension": true, "fileDirname": true,
	"fileExtname": true, "fileWorkspaceFolder": true, "relativeFile": true,
	"relativeFileDirname": true, "lineNumber": true, "selectedText": true,
	"defaultBuildTask": true,
}

// splitRefs cuts a host value into literal text and references. An
// unterminated "${" is literal text.
func splitRefs(s string) []piece {
	var out []piece
	lit := func(t string) {
		if t == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].ref == nil {
			out[n-1].lit += t
			return
		}
		out = append(out, piece{lit: t})
	}
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			lit(s)
			return out
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			lit(s)
			return out
		}
		lit(s[:i])
		raw := s[i : i+j+1]
		out = append(out, piece{ref: parseRef(raw)})
		s = s[i+j+1:]
	}
}

func parseRef(raw string) *ref {
	body := raw[2 : len(raw)-1]
	if name, ok := strings.CutPrefix(body, "env:"); ok && envNameRe.MatchString(name) {
		return &ref{kind: refEnv, name: name, raw: raw}
	}
	if id, ok := strings.CutPrefix(body, "input:"); ok && id != "" {
		return &ref{kind: refInput, name: id, raw: raw}
	}
	name, def, hasDef := strings.Cut(body, ":-")
	if envNameRe.MatchString(name) && !editorVars[name] {
		return &ref{kind: refEnv, name: name, hasDefault: hasDef, def: def, raw: raw}
	}
	return &ref{kind: refEditor, name: body, raw: raw}
}

// envName turns a VS Code input id or a server name into a variable name:
// upper case, other characters as _, never starting with a digit.
func envName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(unicode.ToUpper(r))
		default:
			b.WriteByte('_')
		}
	}
	n := strings.Trim(b.String(), "_")
	for strings.Contains(n, "__") {
		n = strings.ReplaceAll(n, "__", "_")
	}
	if n == "" || (n[0] >= '0' && n[0] <= '9') {
		n = "V_" + n
	}
	return n
}

var (
	// credentialKeyRe matches header, query and flag names that carry
	// credentials. It covers every name hcl's "Literal secret" check
	// warns about, and more.
	credentialKeyRe = regexp.MustCompile(`(?i)(auth|token|secret|passw|api[-_]?key|credential|private[-_]?key|cookie|session|signature|sig$|access[-_]?key|client[-_]?key)`)
	// credentialValueRe matches values that are credentials by their
	// shape: an auth scheme, or a well-known token prefix.
	credentialValueRe = regexp.MustCompile(`^(?i:bearer|basic|token)\s+\S|^(ghp_|gho_|ghs_|ghu_|ghr_|github_pat_|sk-|sk_|pk_live_|rk_live_|xox[abprs]-|AKIA|ASIA|glpat-|AIza|ya29\.|eyJ)`)
	tokenCharsRe      = regexp.MustCompile(`^[A-Za-z0-9_\-+/=.]+$`)
	uuidRe            = regexp.MustCompile(`^(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	hexRe             = regexp.MustCompile(`^(?i)[0-9a-f]{32,}$`)
	schemeRe          = regexp.MustCompile(`^(?i)(bearer|basic|token)(\s+)`)
)

// looksSecret reports a value shaped like a credential: a known prefix or
// auth scheme, or a long random-looking token (upper and lower case letters
// and digits, 20 characters or more, not a path).
func looksSecret(v string) bool {
	v = strings.TrimSpace(v)
	if credentialValueRe.MatchString(v) {
		return true
	}
	if len(v) < 20 || !tokenCharsRe.MatchString(v) || strings.ContainsAny(v[:1], "/.-") {
		return false
	}
	var upper, lower, digit bool
	for _, r := range v {
		upper = upper || unicode.IsUpper(r)
		lower = lower || unicode.IsLower(r)
		digit = digit || unicode.IsDigit(r)
	}
	return upper && lower && digit
}

// looksOpaque adds what is probably an id or key in a header value: a
// UUID or a long hex string.
func looksOpaque(v string) bool {
	v = strings.TrimSpace(v)
	return looksSecret(v) || uuidRe.MatchString(v) || hexRe.MatchString(v)
}
