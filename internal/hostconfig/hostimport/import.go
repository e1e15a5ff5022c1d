package hostimport

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/internal/hostconfig"
)

// File is one host configuration file to import.
type File struct {
	// Name is the path as the user gave it; diagnostics and the spec's
	// header comment use it as it is.
	Name string
	Data []byte
	// Format is the file's format; empty means detected from Name and the
	// top-level keys.
	Format hostconfig.Format
}

// Options shape the spec Import writes.
type Options struct {
	// Agent names the one agent, which uses every imported server;
	// default "assistant".
	Agent string
	// Package, when set, is written as toolgen { package = "…" }, the Go
	// package of the generated code.
	Package string
}

// Result is a spec made from host files.
type Result struct {
	// Spec is the toolgen.hcl file: formatted and deterministic (the same
	// files give the same bytes).
	Spec []byte
	// Servers are the server names, in the spec's order.
	Servers []string
	// Variables are what the spec reads with env(), sorted by name.
	Variables []Variable
}

// Sources are the host files as hcl.Files by name, for rendering Import's
// diagnostics with source snippets.
func Sources(files []File) map[string]*hcl.File {
	m := make(map[string]*hcl.File, len(files))
	for _, f := range files {
		m[f.Name] = &hcl.File{Bytes: f.Data}
	}
	return m
}

// Variable is one environment variable the imported spec reads.
type Variable struct {
	Name string
	// Sources say where the spec reads it, one line each, such as
	// `server "github": env GITHUB_TOKEN, written literally in .mcp.json`.
	Sources []string
}

// WriteNote prints what the user must set before the agent runs. The
// values were never copied (only a ${X:-default} that is no credential
// is), so each line is a placeholder.
func (r *Result) WriteNote(w io.Writer) error {
	if len(r.Variables) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Set these variables where the agent runs (no secret was copied from the host files):")
	for _, v := range r.Variables {
		fmt.Fprintf(tw, "  export %s=…\t# %s\n", v.Name, strings.Join(v.Sources, "; "))
	}
	return tw.Flush()
}

const defaultAgent = "assistant"

// Import reads host configuration files and writes one spec: a server
// block per entry and one agent using them all. Problems with an entry are
// warnings and the entry is left out or imported without the field; a
// file that is not a host configuration is an error, and then Result is
// nil. Values of env, of credential headers and URL credentials are never
// copied: the spec reads them with env("NAME") and Result.Variables lists
// the names.
func Import(files []File, opts Options) (*Result, hcl.Diagnostics) {
	im := &importer{}
	if opts.Agent == "" {
		opts.Agent = defaultAgent
	}
	if !nameRe.MatchString(opts.Agent) {
		im.errorf(nil, "Invalid agent name", "The agent name %q must be 1 to 64 letters, digits, underscores or hyphens.", opts.Agent)
	}
	if len(files) == 0 {
		im.errorf(nil, "No host files", "Name at least one host configuration file to import.")
	}
	for _, f := range files {
		im.readFile(f)
	}
	if im.diags.HasErrors() {
		return nil, im.sorted(files)
	}
	im.sweep()
	if len(im.servers) == 0 {
		im.errorf(nil, "No servers to import", "No server in %s could be imported.", joinNames(files))
		return nil, im.sorted(files)
	}
	im.nameServers()
	im.nameVariables()
	spec := writeSpec(im.servers, files, opts, im.variableNames())
	res := &Result{Spec: spec, Variables: im.variables()}
	for _, s := range im.servers {
		res.Servers = append(res.Servers, s.name)
	}
	return res, im.sorted(files)
}

// sorted orders diagnostics by file, in the order given, and place; those
// about no place come last.
func (im *importer) sorted(files []File) hcl.Diagnostics {
	order := map[string]int{}
	for i, f := range files {
		if _, ok := order[f.Name]; !ok {
			order[f.Name] = i
		}
	}
	key := func(d *hcl.Diagnostic) (int, int) {
		if d.Subject == nil {
			return len(files), 0
		}
		return order[d.Subject.Filename], d.Subject.Start.Byte
	}
	slices.SortStableFunc(im.diags, func(a, b *hcl.Diagnostic) int {
		af, ab := key(a)
		bf, bb := key(b)
		return cmp.Or(cmp.Compare(af, bf), cmp.Compare(ab, bb))
	})
	return im.diags
}

func joinNames(files []File) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// importer collects servers and diagnostics over all files.
type importer struct {
	diags   hcl.Diagnostics
	servers []*server
	// literals are values that become variables once servers have their
	// final names, in the order they were met.
	literals []*literal
	// refs are the variables host files name, with where.
	refs []refUse
}

type refUse struct {
	server       *server
	name, source string
}

func (im *importer) add(sev hcl.DiagnosticSeverity, at *hcl.Range, summary, format string, args ...any) {
	im.diags = append(im.diags, &hcl.Diagnostic{Severity: sev, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: at})
}

func (im *importer) errorf(at *hcl.Range, summary, format string, args ...any) {
	im.add(hcl.DiagError, at, summary, format, args...)
}

func (im *importer) warnf(at hcl.Range, summary, format string, args ...any) {
	im.add(hcl.DiagWarning, &at, summary, format, args...)
}

// hostFile is what reading an entry needs to know about its file.
type hostFile struct {
	name   string
	format hostconfig.Format
	fields []string
	inputs map[string]input // VS Code's inputs by id
}

// input is a VS Code input variable.
type input struct {
	typ, description string
}

func (im *importer) readFile(f File) {
	d, diags := parseDoc(f.Name, f.Data)
	im.diags = append(im.diags, diags...)
	if d == nil {
		return
	}
	if d.root.kind() != '{' {
		r := d.root.rng()
		im.errorf(&r, "Not a host configuration", "%s holds %s; an MCP host configuration is a JSON object with \"mcpServers\" (Claude Desktop, Claude Code, Cursor) or \"servers\" (VS Code).", f.Name, kindName(d.root.kind()))
		return
	}
	top := d.root.members()
	keys := make([]string, len(top))
	for i, m := range top {
		keys[i] = m.key
	}
	hf := &hostFile{name: f.Name, format: f.Format, inputs: map[string]input{}}
	if hf.format != "" {
		hf.fields = formatFields[hf.format]
	} else if ff, fields, ok := detect(f.Name, keys); ok {
		hf.format, hf.fields = ff, fields
	}
	var servers *member
	wantKey := "mcpServers"
	if hf.format != "" {
		wantKey = hf.format.ServersKey()
	}
	for i := range top {
		if top[i].key == wantKey || (servers == nil && (top[i].key == "mcpServers" || top[i].key == "servers")) {
			servers = &top[i]
		}
	}
	if servers == nil {
		r := d.rangeOf(0, 0)
		if len(top) > 0 {
			r = top[0].rng
		}
		detail := fmt.Sprintf("%s has no \"mcpServers\" object (Claude Desktop, Claude Code, Cursor) or \"servers\" object (VS Code).", f.Name)
		for _, m := range top {
			if near := didyoumean.Nearest(m.key, []string{"mcpServers", "servers"}, 1); len(near) > 0 {
				r = m.rng
				detail += fmt.Sprintf(" It has %q; did you mean %q?", m.key, near[0])
				break
			}
		}
		im.errorf(&r, "Not a host configuration", "%s", detail)
		return
	}
	if hf.format == "" {
		hf.format, hf.fields = claudeCode, formatFields[claudeCode]
	}
	for _, m := range top {
		switch {
		case m.key == servers.key:
		case m.key == "inputs" && hf.format == vscode:
			im.readInputs(hf, m.val)
		case hf.format == claude:
			// The rest of Claude Desktop's file is app settings.
		default:
			known := []string{hf.format.ServersKey()}
			if hf.format == vscode {
				known = append(known, "inputs")
			}
			im.warnf(m.rng, "Unknown field", "%s does not use the top-level field %q in %s; it is not imported.%s", hf.format.Title(), m.key, f.Name, didYouMean(m.key, known))
		}
	}
	if servers.val.kind() != '{' {
		im.errorf(ptr(servers.val.rng()), "Not a host configuration", "%q in %s is %s; it must be an object mapping server names to servers.", servers.key, f.Name, kindName(servers.val.kind()))
		return
	}
	type entry struct {
		at hcl.Range
		s  *server // nil when not imported
	}
	seen := map[string]entry{}
	for _, m := range servers.val.members() {
		if prev, dup := seen[m.key]; dup {
			// Hosts parse JSON as JavaScript does: the last one wins.
			im.warnf(prev.at, "Duplicate server", "The server %q is declared again at line %d of %s; hosts use the last one, so this one is not imported.", m.key, m.rng.Start.Line, f.Name)
			if prev.s != nil {
				prev.s.dropped = true
			}
		}
		s := im.readServer(hf, m)
		if s != nil {
			im.servers = append(im.servers, s)
		}
		seen[m.key] = entry{m.rng, s}
	}
}

// sweep removes the servers marked dropped, and what they would have read.
func (im *importer) sweep() {
	im.servers = slices.DeleteFunc(im.servers, func(s *server) bool { return s.dropped })
	im.literals = slices.DeleteFunc(im.literals, func(l *literal) bool { return l.server.dropped })
	im.refs = slices.DeleteFunc(im.refs, func(r refUse) bool { return r.server.dropped })
}

func (im *importer) readInputs(hf *hostFile, n node) {
	if n.kind() != '[' {
		im.warnf(n.rng(), "Invalid inputs", "\"inputs\" in %s is %s; VS Code expects an array of input variables. They are not imported.", hf.name, kindName(n.kind()))
		return
	}
	for _, el := range n.elements() {
		var in input
		var id string
		for _, m := range el.members() {
			s, _ := m.val.str()
			switch m.key {
			case "id":
				id = s
			case "type":
				in.typ = s
			case "description":
				in.description = s
			}
		}
		if id == "" {
			im.warnf(el.rng(), "Invalid input", "An input in %s has no \"id\"; no server can refer to it.", hf.name)
			continue
		}
		hf.inputs[id] = in
	}
}

// didYouMean is a " Did you mean …?" sentence, or "".
func didYouMean(given string, candidates []string) string {
	if given == "" {
		return ""
	}
	near := didyoumean.Nearest(given, candidates, 1)
	if len(near) == 0 || near[0] == given {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", near[0])
}

func ptr[T any](v T) *T { return &v }
