package hostimport

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// server is one imported entry, in the spec's terms.
type server struct {
	origin    string // the host's name for it
	file      string
	at        hcl.Range // the entry's key
	name      string    // the spec's name, set by nameServers
	transport string
	command   string
	args      []string
	env       []keyVal
	url       value
	headers   []keyVal
	dropped   bool // declared again later, or the same as one imported
}

type keyVal struct {
	key string
	val value
}

// value is a spec string: literal text and env("NAME") reads.
type value []*part

type part struct {
	lit string
	env string   // the variable's name; set later for a literal
	def *string  // env()'s default: ${X:-default} as written in the host file
	sec *literal // a value not copied, named by nameVariables
}

func litValue(s string) value { return value{{lit: s}} }

// literal is a value the spec must not hold: it becomes a variable whose
// name is chosen once every server has its final name.
type literal struct {
	server *server
	part   *part
	text   string // compared, never written
	prefer string // the name wanted: the env key, or "" for SERVER_suffix
	suffix string // TOKEN, PASSWORD, API_KEY …: the name is SERVER_suffix
	source string // for the note, without the server
}

// transports maps the hosts' type values to toolgen transports.
var transports = map[string]string{
	"stdio": "stdio", "local": "stdio",
	"http": "http", "streamable-http": "http", "streamableHttp": "http", "streamable_http": "http", "remote": "http",
	"sse": "sse",
	"ws":  "ws", "websocket": "ws",
}

func (im *importer) readServer(hf *hostFile, m member) *server {
	s := &server{origin: m.key, file: hf.name, at: m.rng}
	if m.val.kind() != '{' {
		im.warnf(m.val.rng(), "Server not imported", "The server %q in %s is %s; a server is an object with command or url.", m.key, hf.name, kindName(m.val.kind()))
		return nil
	}
	fields := map[string]member{}
	for _, f := range m.val.members() {
		switch {
		case slices.Contains(importedFields, f.key):
			fields[f.key] = f
		case skippedFields[f.key] != "" && slices.Contains(hf.fields, f.key):
			im.warnf(f.rng, "Field not imported", "%q of server %q is not imported: %s.", f.key, m.key, skippedFields[f.key])
		default:
			known := slices.Concat(hf.fields, []string{"disabled"})
			im.warnf(f.rng, "Unknown field", "%s does not document %q for a server; it is not imported.%s", hf.format.Title(), f.key, didYouMean(f.key, known))
		}
	}
	if f, ok := fields["disabled"]; ok {
		if b, _ := f.val.boolean(); b {
			im.warnf(f.rng, "Server not imported", "The server %q is disabled in %s.", m.key, hf.name)
			return nil
		}
	}

	// The transport: the host's type, or what the entry has.
	cmd, hasCmd := fields["command"]
	u, hasURL := fields["url"]
	if f, ok := fields["type"]; ok {
		t, _ := f.val.str()
		s.transport = transports[t]
		if s.transport == "" {
			names := []string{"stdio", "http", "sse"}
			im.warnf(f.val.rng(), "Unknown server type", "%q is not a server type toolgen knows (%s); the transport is taken from the entry's fields.%s", t, strings.Join(names, ", "), didYouMean(t, names))
		}
	}
	if s.transport == "" {
		switch {
		case hasCmd:
			s.transport = "stdio"
			if hasURL {
				im.warnf(u.rng, "Field not imported", "The server %q has both command and url; it is imported as a stdio server running the command.", m.key)
				delete(fields, "url")
				delete(fields, "headers")
			}
		case hasURL:
			s.transport = "http"
			if raw, _ := u.val.str(); sseURL(raw) {
				s.transport = "sse"
			}
		default:
			im.warnf(m.rng, "Server not imported", "The server %q in %s has neither command nor url.", m.key, hf.name)
			return nil
		}
	}
	stdio := s.transport == "stdio"
	need := map[bool]string{true: "command", false: "url"}[stdio]
	if _, ok := fields[need]; !ok {
		im.warnf(m.rng, "Server not imported", "The server %q is a %s server without %q.", m.key, s.transport, need)
		return nil
	}
	for _, name := range []string{"command", "args", "env", "url", "headers"} {
		f, ok := fields[name]
		if !ok || slices.Contains(map[bool][]string{true: {"command", "args", "env"}, false: {"url", "headers"}}[stdio], name) {
			continue
		}
		im.warnf(f.rng, "Field not imported", "The %s transport does not use %q; the server %q is imported without it.", s.transport, name, m.key)
		delete(fields, name)
	}

	ok := true
	if stdio {
		ok = im.readCommand(s, cmd)
		if f, has := fields["args"]; has && ok {
			im.readArgs(s, f)
		}
		if f, has := fields["env"]; has && ok {
			s.env = im.readMap(hf, s, f, "env")
		}
	} else {
		ok = im.readURL(hf, s, u)
		if f, has := fields["headers"]; has && ok {
			s.headers = im.readMap(hf, s, f, "headers")
		}
	}
	if !ok {
		return nil
	}
	return s
}

// sseURL reports a URL whose path names the SSE endpoint, the one hint an
// entry without type gives.
func sseURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/sse")
}

func (im *importer) readCommand(s *server, f member) bool {
	c, ok := f.val.str()
	if !ok || strings.TrimSpace(c) == "" {
		im.warnf(f.val.rng(), "Server not imported", "The command of server %q must be a non-empty string.", s.origin)
		return false
	}
	c = strings.TrimSpace(c)
	if words := strings.Fields(c); len(words) > 1 && !strings.ContainsAny(words[0], `/\`) {
		if strings.ContainsAny(c, `"'`) {
			im.warnf(f.val.rng(), "Server not imported", "The command of server %q is a shell command line with quotes; toolgen runs no shell. Put the program in command and each argument in args.", s.origin)
			return false
		}
		im.warnf(f.val.rng(), "Command split", "toolgen runs no shell, so the command %q of server %q is imported as command %q and %d argument(s) before args.", c, s.origin, words[0], len(words)-1)
		c, s.args = words[0], words[1:]
	}
	s.command = im.plainText(s, c, "command", f.val.rng())
	return true
}

func (im *importer) readArgs(s *server, f member) {
	if f.val.kind() != '[' {
		im.warnf(f.val.rng(), "Field not imported", "The args of server %q are %s, not an array of strings.", s.origin, kindName(f.val.kind()))
		return
	}
	els := f.val.elements()
	for i, el := range els {
		a, ok := el.scalar()
		if !ok {
			im.warnf(el.rng(), "Field not imported", "args[%d] of server %q is %s; it is left out.", i, s.origin, kindName(el.kind()))
			continue
		}
		prev := ""
		if i > 0 {
			prev, _ = els[i-1].scalar()
		}
		if red, why := redactArg(prev, a); why != "" {
			im.warnf(el.rng(), "Secret not copied", "args[%d] of server %q looks like a credential (%s), so it was not copied: the spec has %q in its place. toolgen passes args as written and cannot read them from the environment; give the server the secret through env if it reads one, or write it back by hand (it is then compiled into the agent binary).", i, s.origin, why, red)
			a = red
		}
		s.args = append(s.args, im.plainText(s, a, fmt.Sprintf("args[%d]", i), el.rng()))
	}
}

const redacted = "<redacted>"

// redactArg replaces an argument that looks like a credential; prev is the
// argument before it (a flag such as --api-key). A URL keeps everything but
// its password.
func redactArg(prev, a string) (string, string) {
	if u, err := url.Parse(a); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			// The userinfo ends at the authority's last @, as url.Parse reads it.
			start := strings.Index(a, "//") + 2
			end := len(a)
			if i := strings.IndexAny(a[start:], "/?#"); i >= 0 {
				end = start + i
			}
			at := start + strings.LastIndex(a[start:end], "@")
			user, _, _ := strings.Cut(a[start:at], ":")
			return a[:start] + user + ":" + redacted + a[at:], "a URL with a password"
		}
	}
	if flag, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(flag, "-") && credentialKeyRe.MatchString(flag) && val != "" {
		return flag + "=" + redacted, "the value of " + flag
	}
	if strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && credentialKeyRe.MatchString(prev) && !strings.HasPrefix(a, "-") {
		return redacted, "the value of " + prev
	}
	if looksSecret(a) {
		return redacted, "it has the shape of a token"
	}
	return "", ""
}

// plainText is a command or argument: toolgen does not expand ${…} there,
// so references stay as written, with a warning.
func (im *importer) plainText(s *server, text, what string, at hcl.Range) string {
	for _, p := range splitRefs(text) {
		if p.ref != nil {
			im.warnf(at, "Reference not expanded", "%s of server %q uses %s, which toolgen does not expand in %s; the server gets it as written. Pass environment values through env instead.", what, s.origin, p.ref.raw, strings.TrimRightFunc(what, func(r rune) bool { return r == ']' || r == '[' || (r >= '0' && r <= '9') }))
			break
		}
	}
	return text
}

// readMap reads env or headers: string values by key.
func (im *importer) readMap(hf *hostFile, s *server, f member, what string) []keyVal {
	if f.val.kind() != '{' {
		im.warnf(f.val.rng(), "Field not imported", "The %s of server %q is %s, not an object.", what, s.origin, kindName(f.val.kind()))
		return nil
	}
	var out []keyVal
	seen := map[string]bool{}
	for _, m := range f.val.members() {
		if m.key == "" || strings.ContainsAny(m.key, "=\x00") || (what == "headers" && strings.ContainsAny(m.key, " :\r\n")) {
			im.warnf(m.rng, "Field not imported", "%q is not a valid %s name; it is left out of server %q.", m.key, map[string]string{"env": "variable", "headers": "header"}[what], s.origin)
			continue
		}
		if seen[m.key] {
			im.warnf(m.rng, "Duplicate key", "%s %q of server %q is given twice; the first is imported.", what, m.key, s.origin)
			continue
		}
		raw, ok := m.val.scalar()
		if !ok {
			if m.val.kind() == 'n' && what == "env" {
				im.warnf(m.val.rng(), "Field not imported", "env %q of server %q is null (VS Code: remove the variable); toolgen starts servers with only the variables they declare, so it is left out.", m.key, s.origin)
			} else {
				im.warnf(m.val.rng(), "Field not imported", "%s %q of server %q is %s, not a string; it is left out.", what, m.key, s.origin, kindName(m.val.kind()))
			}
			continue
		}
		seen[m.key] = true
		var v value
		if what == "env" {
			v = im.envValue(hf, s, m.key, raw, m.val.rng())
		} else {
			v = im.headerValue(hf, s, m.key, raw, m.val.rng())
		}
		out = append(out, keyVal{m.key, v})
	}
	return out
}

// envValue: every literal env value is read from the environment when the
// agent runs; references name their variable.
func (im *importer) envValue(hf *hostFile, s *server, key, raw string, at hcl.Range) value {
	pieces := splitRefs(raw)
	refs, editor := false, false
	for _, p := range pieces {
		if p.ref != nil {
			refs = true
			editor = editor || p.ref.kind == refEditor
		}
	}
	if !refs || editor {
		how := "written literally"
		if strings.Contains(raw, "${") {
			how = "written with editor variables"
		}
		return im.secret(s, raw, key, "", fmt.Sprintf("env %s, %s in %s", key, how, hf.name))
	}
	return im.refValue(hf, s, pieces, "env "+key, at)
}

// headerValue: references name their variable; a literal credential is
// read from SERVER_TOKEN (Authorization) or SERVER_HEADER; other literal
// headers are copied.
func (im *importer) headerValue(hf *hostFile, s *server, key, raw string, at hcl.Range) value {
	pieces := splitRefs(raw)
	editor, refs := false, false
	for _, p := range pieces {
		if p.ref != nil {
			refs = true
			editor = editor || p.ref.kind == refEditor
		}
	}
	if refs && !editor {
		return im.refValue(hf, s, pieces, "header "+key, at)
	}
	if !refs && !credentialKeyRe.MatchString(key) && !looksOpaque(raw) {
		return litValue(raw)
	}
	suffix := envName(strings.TrimPrefix(strings.TrimPrefix(key, "X-"), "x-"))
	if strings.EqualFold(key, "Authorization") || strings.EqualFold(key, "Proxy-Authorization") {
		suffix = "TOKEN"
	}
	source := fmt.Sprintf("header %s, written literally in %s", key, hf.name)
	if m := schemeRe.FindStringSubmatch(raw); m != nil && !refs {
		v := litValue(m[0])
		return append(v, im.secret(s, raw[len(m[0]):], "", suffix, source)...)
	}
	return im.secret(s, raw, "", suffix, source)
}

// secret records a value the spec must not hold and returns its env read.
func (im *importer) secret(s *server, text, prefer, suffix, source string) value {
	p := &part{}
	l := &literal{server: s, part: p, text: text, prefer: prefer, suffix: suffix, source: source}
	p.sec = l
	im.literals = append(im.literals, l)
	return value{p}
}

// refValue turns ${env:X}, ${X} and ${input:ID} into env reads; literal
// text around them is kept.
func (im *importer) refValue(hf *hostFile, s *server, pieces []piece, what string, at hcl.Range) value {
	var v value
	for _, p := range pieces {
		if p.ref == nil {
			v = append(v, &part{lit: p.lit})
			continue
		}
		name := p.ref.name
		source := fmt.Sprintf("%s: %s in %s", what, p.ref.raw, hf.name)
		switch p.ref.kind {
		case refInput:
			name = envName(p.ref.name)
			in, ok := hf.inputs[p.ref.name]
			switch {
			case !ok:
				im.warnf(at, "Unknown input", "%s of server %q refers to the input %q, which %s does not declare; the spec reads the variable %s instead.", what, s.origin, p.ref.name, hf.name, name)
			case in.description != "":
				source = fmt.Sprintf("%s: VS Code input %q (%s) in %s", what, p.ref.name, in.description, hf.name)
			}
		case refEnv:
			if p.ref.hasDefault && (looksSecret(p.ref.def) || credentialKeyRe.MatchString(name)) {
				// a default is compiled into the agent binary, and the
				// note must not quote it either
				source = fmt.Sprintf("%s: ${%s:-…} in %s", what, name, hf.name)
				im.warnf(at, "Default not imported", "%s of server %q gives %s a default that may be a credential; it would be compiled into the agent binary, so it was not copied and %s must be set where the agent runs.", what, s.origin, name, name)
			} else if p.ref.hasDefault {
				def := p.ref.def
				v = append(v, &part{env: name, def: &def})
				im.refs = append(im.refs, refUse{s, name, source + " (optional: it has a default)"})
				continue
			}
		}
		v = append(v, &part{env: name})
		im.refs = append(im.refs, refUse{s, name, source})
	}
	return v
}

// readURL reads a server's URL: references become env reads, and a
// password or a credential in the query is not copied.
func (im *importer) readURL(hf *hostFile, s *server, f member) bool {
	raw, ok := f.val.str()
	at := f.val.rng()
	if !ok || raw == "" {
		im.warnf(at, "Server not imported", "The url of server %q must be a non-empty string.", s.origin)
		return false
	}
	pieces := splitRefs(raw)
	for _, p := range pieces {
		if p.ref != nil && p.ref.kind == refEditor {
			im.warnf(at, "Server not imported", "The url of server %q uses the editor variable %s, which has no value outside the editor.", s.origin, p.ref.raw)
			return false
		}
	}
	want := map[bool][]string{true: {"ws", "wss"}, false: {"http", "https"}}[s.transport == "ws"]
	if len(pieces) > 1 || pieces[0].ref != nil {
		// A URL read from the environment may start with a reference;
		// written text before the first one must hold the scheme.
		if first := pieces[0]; first.ref == nil {
			scheme, _, ok := strings.Cut(first.lit, "://")
			if !ok || !slices.Contains(want, strings.ToLower(scheme)) {
				im.warnf(at, "Server not imported", "The url %q of server %q does not start with %s://.", raw, s.origin, strings.Join(want, ":// or "))
				return false
			}
		}
		s.url = im.refValue(hf, s, pieces, "url", at)
		return true
	}
	u, err := url.Parse(raw)
	if err != nil || !slices.Contains(want, strings.ToLower(u.Scheme)) || u.Host == "" {
		im.warnf(at, "Server not imported", "The url %q of server %q is not an absolute %s URL.", raw, s.origin, strings.Join(want, " or "))
		return false
	}
	s.url = im.urlValue(hf, s, raw)
	return true
}

func (im *importer) urlValue(hf *hostFile, s *server, raw string) value {
	var v value
	lit := func(t string) {
		if t == "" {
			return
		}
		if n := len(v); n > 0 && v[n-1].sec == nil && v[n-1].env == "" {
			v[n-1].lit += t
			return
		}
		v = append(v, &part{lit: t})
	}
	source := func(what string) string { return fmt.Sprintf("%s in the url, written literally in %s", what, hf.name) }
	start := strings.Index(raw, "://") + 3
	end := len(raw)
	if i := strings.IndexAny(raw[start:], "/?#"); i >= 0 {
		end = start + i
	}
	authority := raw[start:end]
	lit(raw[:start])
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		user, pass, hasPass := strings.Cut(authority[:at], ":")
		switch {
		case hasPass && pass != "":
			lit(user + ":")
			v = append(v, im.secret(s, pass, "", "PASSWORD", source("the password"))...)
		case !hasPass && looksSecret(user):
			v = append(v, im.secret(s, user, "", "TOKEN", source("the user name"))...)
		default:
			lit(authority[:at])
		}
		authority = authority[at:]
	}
	lit(authority)
	rest := raw[end:]
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		lit(rest)
		return v
	}
	lit(rest[:q+1])
	query, frag, hasFrag := strings.Cut(rest[q+1:], "#")
	for i, pair := range strings.Split(query, "&") {
		if i > 0 {
			lit("&")
		}
		k, val, has := strings.Cut(pair, "=")
		if has && val != "" && (credentialKeyRe.MatchString(k) || looksSecret(val)) {
			lit(k + "=")
			v = append(v, im.secret(s, val, "", envName(k), source("the query parameter "+k))...)
			continue
		}
		lit(pair)
	}
	if hasFrag {
		lit("#" + frag)
	}
	return v
}
