package hcl

import (
	"sort"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Resolution of declared skills and of the skills each agent may use.

func (r *resolver) resolveSkills() []*ir.Skill {
	var out []*ir.Skill
	for _, name := range keys(r.skills) {
		if sk := r.skills[name].Skill; sk != nil {
			out = append(out, sk)
		}
	}
	return out
}

// skillsMatching lists the declared skills a tools.use glob matches,
// sorted: skills are used like tools, globs included.
func (r *resolver) skillsMatching(pattern string) []string {
	var out []string
	for _, name := range keys(r.skills) {
		if decl.Match(pattern, name) {
			out = append(out, name)
		}
	}
	return out
}

// agentSkills are the skills an agent may use: skill.NAME in tools.use,
// those its globs match, and those its bundles carry. Unknown names were
// reported where the references were resolved.
func (r *resolver) agentSkills(a *agentBlock) []string {
	var out []string
	for _, u := range a.Use {
		switch {
		case u.Ref == nil:
			for _, s := range r.skillsMatching(u.Str.Val) {
				out = appendUnique(out, s)
			}
		case u.Ref.Kind == "skill" && r.skills[u.Ref.Name] != nil:
			out = appendUnique(out, u.Ref.Name)
		case u.Ref.Kind == "bundle" && r.bundles[u.Ref.Name] != nil:
			for _, s := range r.bundles[u.Ref.Name].Skills {
				if r.skills[s.Name] != nil {
					out = appendUnique(out, s.Name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
