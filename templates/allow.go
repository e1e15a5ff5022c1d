package templates

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// allowSet is what one agent may call, split into the exact names known at
// generate time (a switch in routes_gen.go) and glob rules kept for tools
// that servers may add at run time.
type allowSet struct {
	Names []string   // sorted, unique
	Globs []globRule // declaration order
}

// globRule matches names by Pattern, except those matching any of Except
// (a direct bundle's deny_tools).
type globRule struct {
	Pattern string
	Except  []string
}

func (r globRule) match(name string) bool {
	if !globMatch(r.Pattern, name) {
		return false
	}
	for _, e := range r.Except {
		if globMatch(e, name) {
			return false
		}
	}
	return true
}

// isGlob reports whether s has path.Match metacharacters.
func isGlob(s string) bool { return strings.ContainsAny(s, "*?[\\") }

// globMatch is path.Match with a malformed pattern matching nothing
// (validation rejects those before generation).
func globMatch(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return ok && err == nil
}

// allows reports whether the set admits name: the in-memory twin of the
// generated switch.
func (a *allowSet) allows(name string) bool {
	if _, ok := slices.BinarySearch(a.Names, name); ok {
		return true
	}
	for _, g := range a.Globs {
		if g.match(name) {
			return true
		}
	}
	return false
}

// agentAllow computes an agent's allow set. With tools.allowed written, it
// is each entry (a name or alias as written) plus the catalog names the
// entry matches through aliases and globs; globs also stay as run-time
// rules. With tools.allowed omitted, it is every tool in use: declared
// tools, the known tools of used servers and direct bundles, and a run-time
// rule for each server namespace. Meta bundles add nothing here: their
// tools are the runtime's meta tools, scoped by the bundle at run time.
func agentAllow(spec *ir.Spec, a *ir.Agent) *allowSet {
	var names []string
	var globs []globRule
	if a.AllowedSet {
		aliases := make(map[string]string, len(a.Aliases))
		for _, al := range a.Aliases {
			aliases[al.Name] = al.Target
		}
		for _, e := range a.Allowed {
			if e.IsGlob {
				names = appendExpanded(names, e.Matches)
				globs = append(globs, globRule{Pattern: e.Pattern})
				continue
			}
			names = append(names, e.Matches...)
			names = append(names, e.Pattern)
			if t, ok := aliases[e.Pattern]; ok {
				names = append(names, t)
			}
		}
		return newAllowSet(names, globs)
	}
	sep := spec.Separator
	for _, u := range a.Use {
		switch u.Kind {
		case ir.UseTool:
			names = append(names, u.Name)
		case ir.UseGlob:
			names = appendExpanded(names, u.Matches)
			globs = append(globs, globRule{Pattern: u.Name})
		case ir.UseServer:
			names = appendExpanded(names, serverTools(spec, u.Name, nil, nil))
			globs = append(globs, globRule{Pattern: u.Name + sep + "*"})
		case ir.UseBundle:
			b := findBundle(spec, u.Name)
			if b == nil {
				continue
			}
			if b.Server == "" {
				names = append(names, b.Tools...)
				continue
			}
			if b.Mode == ir.ModeMeta {
				continue
			}
			names = appendExpanded(names, serverTools(spec, b.Server, b.AllowTools, b.DenyTools))
			allow := b.AllowTools
			if len(allow) == 0 {
				allow = []string{"*"}
			}
			var except []string
			for _, d := range b.DenyTools {
				except = append(except, b.Server+sep+d)
			}
			for _, p := range allow {
				globs = append(globs, globRule{Pattern: b.Server + sep + p, Except: except})
			}
		}
	}
	return newAllowSet(names, globs)
}

// maxExpand caps how many names one glob adds to the switch. Past it the
// glob's run-time rule answers alone (the same answer, by path.Match), so
// "files_*" over thousands of tools does not put thousands of cases into
// every agent that allows it.
const maxExpand = 64

// appendExpanded adds the names a glob matches now, unless there are more
// than maxExpand of them.
func appendExpanded(names, matches []string) []string {
	if len(matches) > maxExpand {
		return names
	}
	return append(names, matches...)
}

func newAllowSet(names []string, globs []globRule) *allowSet {
	// A rule without metacharacters is one exact name.
	rules := globs[:0:0]
	for _, g := range globs {
		if isGlob(g.Pattern) {
			rules = append(rules, g)
		} else if !anyMatch(g.Except, g.Pattern) {
			names = append(names, g.Pattern)
		}
	}
	globs = rules
	sort.Strings(names)
	names = slices.Compact(names)
	// Names a rule also covers stay: the switch is the fast path for every
	// name known now, the rules only the fallback.
	return &allowSet{Names: names, Globs: globs}
}

// serverTools lists the catalog tools of a server whose own names pass the
// allow globs (all when empty) and no deny glob.
func serverTools(spec *ir.Spec, server string, allow, deny []string) []string {
	var out []string
	for _, c := range spec.Catalog {
		if c.Kind != ir.KindMCP || c.Server != server {
			continue
		}
		if len(allow) > 0 && !anyMatch(allow, c.Original) || anyMatch(deny, c.Original) {
			continue
		}
		out = append(out, c.Name)
	}
	return out
}

func anyMatch(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == name || globMatch(p, name) {
			return true
		}
	}
	return false
}

func findBundle(spec *ir.Spec, name string) *ir.Bundle {
	i, ok := slices.BinarySearchFunc(spec.Bundles, name, func(b *ir.Bundle, n string) int {
		return strings.Compare(b.Name, n)
	})
	if !ok {
		// Fall back to a scan for specs built by hand in an unsorted order.
		for _, b := range spec.Bundles {
			if b.Name == name {
				return b
			}
		}
		return nil
	}
	return spec.Bundles[i]
}

// route is one workflow step's address and bundles, in spec order.
type route struct {
	Workflow, Role, Step string
	Bundles              []string
}

func routes(spec *ir.Spec) []route {
	var out []route
	for _, w := range spec.Workflows {
		for _, r := range w.Roles {
			for _, s := range r.Steps {
				out = append(out, route{w.Name, r.Name, s.Name, s.Bundles})
			}
		}
	}
	return out
}
