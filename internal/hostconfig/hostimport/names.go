package hostimport

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// nameRe is the portable name set every model provider accepts.
var nameRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// portableName maps a host's server name into the portable set: other
// characters become _, runs of _ made so collapse, at most 64 bytes.
func portableName(s string) string {
	if nameRe.MatchString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && (r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	n := b.String()
	for strings.Contains(n, "__") {
		n = strings.ReplaceAll(n, "__", "_")
	}
	if t := strings.Trim(n, "_"); t != "" {
		n = t
	}
	if n == "_" || n == "" {
		n = "server"
	}
	return truncate(n, 64)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// reservedServer reports a name whose exposed tools (NAME__tool) the
// runtime keeps for itself (agent__…).
func reservedServer(name string) bool {
	return strings.HasPrefix(name+"__", "agent__")
}

// signature identifies a server by what it runs or reaches, for importing
// the same server from two files once. Literal values take part in memory
// only.
func (s *server) signature() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%q\x00%q\x00%s\x00", s.transport, s.command, s.args, s.url.sig())
	for _, kv := range slices.Concat(s.env, []keyVal{{}}, s.headers) {
		fmt.Fprintf(&b, "%q=%s\x00", kv.key, kv.val.sig())
	}
	return b.String()
}

func (v value) sig() string {
	var b strings.Builder
	for _, p := range v {
		switch {
		case p.sec != nil:
			fmt.Fprintf(&b, "S%q%q%q", p.sec.prefer, p.sec.suffix, p.sec.text)
		case p.env != "":
			fmt.Fprintf(&b, "E%q", p.env)
		default:
			fmt.Fprintf(&b, "L%q", p.lit)
		}
	}
	return b.String()
}

// nameServers gives every server its spec name in file order: portable,
// not reserved, unique also as a Go identifier. A server that another file
// already declared the same way is imported once.
func (im *importer) nameServers() {
	next := map[string]int{} // the next suffix to try for a base name
	byName := map[string]*server{}
	byGo := map[string]*server{}
	bySig := map[string]*server{}
	kept := im.servers[:0]
	for _, s := range im.servers {
		sig := s.signature()
		if prev := bySig[sig]; prev != nil && prev.file != s.file {
			im.warnf(s.at, "Server imported once", "The server %q in %s is the same as %q in %s, so it is imported once, as %q.", s.origin, s.file, prev.origin, prev.file, prev.name)
			s.dropped = true
			continue
		}
		base := portableName(s.origin)
		why := ""
		if base != s.origin {
			why = fmt.Sprintf("%q is not a portable name (1 to 64 letters, digits, _ or -)", s.origin)
		}
		switch {
		case reservedServer(base):
			base = truncate("mcp_"+base, 64)
			why = fmt.Sprintf("the runtime keeps the tool names of a server named %q (agent__…) for its own tools", s.origin)
		case base[0] == '-' || base[0] >= '0' && base[0] <= '9':
			// server.NAME is a reference only when NAME starts like an identifier.
			base = truncate("mcp_"+base, 64)
			why = fmt.Sprintf("a reference (server.NAME) needs a name that starts with a letter or _, not %q", base[4:5])
		}
		name := base
		if clash := cmp.Or(byName[name], byGo[ir.GoName(name)]); clash != nil {
			why = fmt.Sprintf("%q is taken by the server from %s:%d", base, clash.file, clash.at.Start.Line)
			n := max(next[base], 2)
			for ; byName[name] != nil || byGo[ir.GoName(name)] != nil; n++ {
				sfx := fmt.Sprintf("-%d", n)
				name = truncate(base, 64-len(sfx)) + sfx
			}
			next[base] = n
		}
		if why != "" {
			im.warnf(s.at, "Server renamed", "The server %q is imported as %q: %s.", s.origin, name, why)
		}
		s.name = name
		byName[name], byGo[ir.GoName(name)], bySig[sig] = s, s, s
		kept = append(kept, s)
	}
	im.servers = kept
	im.sweep()
}

// nameVariables names the variables that replace literal values. An env
// value keeps its key's name unless a host file reads that variable
// itself or another literal value holds it; then, like a credential header
// or URL part, it is SERVER_KEY, with -2, -3 … if that is taken too.
func (im *importer) nameVariables() {
	refd := map[string]bool{}
	for _, r := range im.refs {
		refd[r.name] = true
	}
	held := map[string]string{} // name → the literal value it stands for
	free := func(name, text string) bool {
		v, ok := held[name]
		return !refd[name] && (!ok || v == text)
	}
	for _, l := range im.literals {
		server := envName(l.server.name)
		var cands []string
		if l.prefer != "" {
			key := l.prefer
			if !envNameRe.MatchString(key) {
				key = envName(key)
			}
			cands = []string{key, server + "_" + envName(key)}
		} else {
			cands = []string{server + "_" + l.suffix}
		}
		name := ""
		for _, c := range cands {
			if free(c, l.text) {
				name = c
				break
			}
		}
		for n := 2; name == ""; n++ {
			if c := fmt.Sprintf("%s_%d", cands[len(cands)-1], n); free(c, l.text) {
				name = c
			}
		}
		held[name] = l.text
		l.part.env = name
	}
}

// variables lists every variable with its sources, by name.
func (im *importer) variables() []Variable {
	sources := map[string][]string{}
	add := func(name, src string) {
		if !slices.Contains(sources[name], src) {
			sources[name] = append(sources[name], src)
		}
	}
	for _, l := range im.literals {
		add(l.part.env, fmt.Sprintf("server %q: %s", l.server.name, l.source))
	}
	for _, r := range im.refs {
		add(r.name, fmt.Sprintf("server %q: %s", r.server.name, r.source))
	}
	var out []Variable
	for _, name := range im.variableNames() {
		out = append(out, Variable{Name: name, Sources: sources[name]})
	}
	return out
}

func (im *importer) variableNames() []string {
	var names []string
	for _, l := range im.literals {
		names = append(names, l.part.env)
	}
	for _, r := range im.refs {
		names = append(names, r.name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
