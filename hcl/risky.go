package hcl

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// Settings that are valid but give away more than their author likely
// meant: validate says so, with the fix, at the value.

// shells run any command line they are given; interpreters any program.
var (
	shells       = []string{"bash", "busybox", "csh", "dash", "env", "fish", "ksh", "sh", "sudo", "tcsh", "xargs", "zsh"}
	interpreters = []string{"bun", "deno", "lua", "node", "nodejs", "perl", "php", "pwsh", "python", "python2", "python3", "ruby", "tclsh"}
)

// checkCommand flags a shell (error: a call runs any command line) or an
// interpreter (warning: a call runs any program, -c or -e) in
// allowed_commands.
func checkCommand(s str, ctx hcl.Range) *hcl.Diagnostic {
	base := path.Base(filepath.ToSlash(s.Val))
	switch {
	case slices.Contains(shells, base):
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Shell in allowed_commands",
			Detail:  fmt.Sprintf("%q runs whatever command line a call passes it, so it allows every program and the policy allows nothing less. List the programs themselves, such as \"git\" or \"go\".", s.Val),
			Subject: s.Range.Ptr(), Context: ctx.Ptr()}
	case slices.Contains(interpreters, base) || strings.HasPrefix(base, "python3."):
		return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Interpreter in allowed_commands",
			Detail:  fmt.Sprintf("%q runs any code a call passes it (-c, -e or a script path), so the model can do anything the agent can. Give the script a program of its own and list that instead.", s.Val),
			Subject: s.Range.Ptr(), Context: ctx.Ptr()}
	}
	return nil
}

// checkAllowedPath flags a path that opens too much: the whole file system
// (error), the whole working directory for fs_write (warning: usual while
// developing; reading it is not flagged),
// or the repository's .git, the spec or its lock file (error for fs_write,
// which could rewrite hooks or the spec; warning for fs_read).
func checkAllowedPath(s str, builtin string, ctx hcl.Range) *hcl.Diagnostic {
	clean := filepath.Clean(s.Val)
	diag := func(sev hcl.DiagnosticSeverity, summary, detail string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: sev, Summary: summary, Detail: detail, Subject: s.Range.Ptr(), Context: ctx.Ptr()}
	}
	strong := hcl.DiagWarning
	if builtin == ir.BuiltinFSWrite {
		strong = hcl.DiagError
	}
	specDir, _ := filepath.Abs(filepath.Dir(s.Range.Filename))
	switch {
	case clean == "/" || clean == "~" || (len(clean) == 3 && clean[1:] == `:\`):
		return diag(hcl.DiagError, "Allowed path is the whole file system", fmt.Sprintf("%q lets the %s tool reach every file the agent can, its secrets included (/proc/self/environ, ~/.ssh). List the directories the tool needs, such as \"./workspace\".", s.Val, builtin))
	case builtin == ir.BuiltinFSWrite && (clean == "." || clean == ".." || strings.HasPrefix(clean, "../")):
		// reading "." is the usual development setup; writing it is not
		return diag(hcl.DiagWarning, "Allowed path is the whole working directory", fmt.Sprintf("%q lets the fs_write tool change the agent's whole working directory (or more), usually the repository with its .git hooks, spec and lock file. Fine while developing; for anything else list a directory of its own, such as \"./workspace\".", s.Val))
	}
	for _, part := range strings.Split(filepath.ToSlash(clean), "/") {
		if part == ".git" || part == LockFileName {
			what := "reading it shows remotes and config, which may hold tokens"
			if builtin == ir.BuiltinFSWrite {
				what = "writing there runs code (git hooks) or changes what the agent trusts (the lock)"
			}
			return diag(strong, "Allowed path holds "+part, fmt.Sprintf("%q gives the %s tool %s; %s. Leave it out of allowed_paths.", s.Val, builtin, part, what))
		}
	}
	if filepath.IsAbs(clean) && (specDir == clean || strings.HasPrefix(specDir, clean+string(filepath.Separator))) {
		return diag(strong, "Allowed path holds the spec", fmt.Sprintf("%q contains the spec directory %s, so the %s tool can read or change the spec and its lock file. List a directory of its own.", s.Val, specDir, builtin))
	}
	return nil
}

// checkArgSecrets warns about a credential written into a server's args:
// by its shape, or as the value of a flag named like one (--token=…,
// --api-key …).
func checkArgSecrets(args []str, ctx hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for i, a := range args {
		flag, val, eq := strings.Cut(a.Val, "=")
		if !eq && i > 0 {
			flag, val = args[i-1].Val, a.Val
		}
		placeholder := strings.HasPrefix(val, "<") && strings.HasSuffix(val, ">") // "<redacted>", "<TOKEN>"
		named := strings.HasPrefix(flag, "-") && secretKeyRe.MatchString(flag) && len(val) >= 8 && !strings.HasPrefix(val, "-") && !placeholder
		if secretValueRe.MatchString(a.Val) || secretValueRe.MatchString(val) || named {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Literal secret",
				Detail:  fmt.Sprintf("Argument %d looks like a credential written literally; it would be compiled into the agent binary and shows in ps. Pass it through env instead: env = { TOKEN = env(\"TOKEN\") }, and let the server read it there.", i+1),
				Subject: a.Range.Ptr(), Context: ctx.Ptr()})
		}
	}
	return diags
}

// checkURLSecrets looks at a server URL written literally: a credential in
// its query or user info (warning), and credential headers sent over
// http:// to a host other than loopback (warning: readable on the way).
func checkURLSecrets(v ir.Value, headers []keyValue, rng, ctx hcl.Range) hcl.Diagnostics {
	lit := v.Parts[0].Lit
	u, err := url.Parse(lit)
	if err != nil || u.Host == "" {
		return nil
	}
	var diags hcl.Diagnostics
	warn := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: ctx.Ptr()})
	}
	if len(v.Parts) == 1 {
		for key, vals := range u.Query() {
			for _, val := range vals {
				if (secretKeyRe.MatchString(key) && len(val) >= 8) || secretValueRe.MatchString(val) {
					warn("Literal secret", fmt.Sprintf("The url's query parameter %q looks like a credential written literally; it would be compiled into the agent binary. Read it at run time: \"…?%s=${env(\"TOKEN\")}\".", key, key))
				}
			}
		}
		if _, hasPass := u.User.Password(); hasPass {
			warn("Literal secret", "The url holds a password; it would be compiled into the agent binary. Read it at run time with env(), or send it as a header.")
		}
	}
	if host, ok := plainHTTPHost(v); ok {
		for _, h := range headers {
			if secretKeyRe.MatchString(h.Key) {
				warn("Credential over plain HTTP", fmt.Sprintf("The %s header goes to %s over http://, where anyone on the way can read it. Use https://, or a loopback address for a server on this machine.", h.Key, host))
				break
			}
		}
	}
	return diags
}

// checkRESTSecrets warns about a REST tool whose URL is plain http:// to a
// host other than loopback while a header carries a secret: one named like
// a credential or read with env().
func checkRESTSecrets(r *ir.REST, headers []keyValue, urlRange, ctx hcl.Range) hcl.Diagnostics {
	host, ok := plainHTTPHost(r.URL)
	if !ok {
		return nil
	}
	for _, h := range headers {
		if secretKeyRe.MatchString(h.Key) || readsEnv(h.Value) {
			return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Credential over plain HTTP",
				Detail:  fmt.Sprintf("The %s header carries a secret to %s over http://, where anyone on the way can read it. Use https://, or a loopback address for a service on this machine.", h.Key, host),
				Subject: urlRange.Ptr(), Context: ctx.Ptr()}}
		}
	}
	return nil
}

// checkIssuerScheme warns about an OAuth issuer over plain http:// to a
// host other than loopback: the agent trusts the metadata and tokens it
// serves, and sends it the client's credentials, all readable and
// changeable on the way.
func checkIssuerScheme(v ir.Value, rng, ctx hcl.Range) *hcl.Diagnostic {
	host, ok := plainHTTPHost(v)
	if !ok {
		return nil
	}
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "OAuth issuer over plain HTTP",
		Detail:  fmt.Sprintf("The issuer %s is reached over http://, so anyone on the way can read the client's credentials and tokens or serve forged metadata. Use its https:// URL, or a loopback address for a test server on this machine.", host),
		Subject: rng.Ptr(), Context: ctx.Ptr()}
}

// plainHTTPHost returns the host of a URL whose scheme and host are written
// literally as http:// to a host other than loopback. A host that an env()
// part or a template argument supplies is not judged.
func plainHTTPHost(v ir.Value) (string, bool) {
	if len(v.Parts) == 0 {
		return "", false
	}
	lit := v.Parts[0].Lit
	prefix, _, _ := strings.Cut(lit, "{")
	u, err := url.Parse(prefix)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || u.Host == "" || loopbackHost(u.Hostname()) {
		return "", false
	}
	// the host must end where the literal does, or at a path, query or fragment
	end := len(u.Scheme) + len("://") + len(u.Host)
	if end > len(lit) || !strings.EqualFold(lit[:end], u.Scheme+"://"+u.Host) {
		return "", false
	}
	rest := lit[end:]
	if rest == "" && len(v.Parts) > 1 || rest != "" && !strings.ContainsRune("/?#", rune(rest[0])) && !strings.HasPrefix(rest, "{/") && !strings.HasPrefix(rest, "{?") {
		return "", false
	}
	return u.Host, true
}

// readsEnv reports a value read, at least in part, with env().
func readsEnv(v ir.Value) bool {
	for _, p := range v.Parts {
		if p.Env != "" {
			return true
		}
	}
	return false
}

// loopbackHost reports localhost and loopback addresses.
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
