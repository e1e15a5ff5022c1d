package hcl

import (
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// maxExpand caps how many catalog names one glob of tools.allowed adds to
// the generated switch. Past it the glob answers alone at run time (the
// same answer, by path.Match), so "files_*" over thousands of tools does
// not put thousands of cases into every agent that allows it.
const maxExpand = 64

// allowSet decides what an agent's tools.allowed admits, once, for the
// generated check: each entry as written (a name, or an alias the runtime
// asks about), the alias's target, and the catalog names the entry
// matches now; glob entries also stay as globs for tools servers add at
// run time. The entries come matched against the catalog and the agent's
// aliases. Nil entries (tools.allowed omitted) need no check: the runtime
// allows everything in use.
//
// This is the one place the generator merges an allow list; the runtime
// applies the same entries at run time.
func allowSet(entries []ir.AllowEntry, aliases []ir.Alias) *ir.AllowSet {
	if entries == nil {
		return nil
	}
	set := &ir.AllowSet{}
	for _, e := range entries {
		if e.IsGlob {
			if len(e.Matches) <= maxExpand {
				set.Names = append(set.Names, e.Matches...)
			}
			set.Globs = append(set.Globs, e.Pattern)
			continue
		}
		set.Names = append(set.Names, e.Matches...)
		set.Names = append(set.Names, e.Pattern)
		if i, ok := slices.BinarySearchFunc(aliases, e.Pattern, byAliasName); ok {
			set.Names = append(set.Names, aliases[i].Target)
		}
	}
	slices.Sort(set.Names)
	set.Names = slices.Compact(set.Names)
	return set
}

func byAliasName(a ir.Alias, name string) int { return strings.Compare(a.Name, name) }
