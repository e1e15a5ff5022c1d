package runtime

import (
	"fmt"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// explainUpstreamSkills lists what the agent's servers bring as skills:
// per trusted server whose skills pass through, a "server.NAME" row with
// the use entry that brings it and its allow_skills/deny_skills; then each
// skill the lock file recorded for it that the policy and tools.allowed
// admit, under its exposed name. Skills the policy keeps out are notes.
// Nothing is connected: a server's unlocked skills are known only live.
func explainUpstreamSkills(r *Registry, p *Pool, a *decl.Agent, bundles []string, inStep bool) (rows []ExplainedFeature, notes []string) {
	uses := a.Use
	if inStep {
		uses = stepUses(bundles)
	}
	cut := ""
	if a.Allowed != nil {
		cut = "; cut to tools.allowed"
	}
	for _, name := range p.featureServers(uses) {
		srv := p.servers[name]
		policy := policyText("allow_skills", srv.AllowSkills, "deny_skills", srv.DenySkills)
		via := serverVia(p, uses, name, inStep)
		rows = append(rows, ExplainedFeature{Name: "server." + name, Reason: "its skills, as " + name + r.Sep() + "NAME (" + via + ")" + policy + cut})
		var f decl.Filter
		f.Add(srv.AllowSkills, srv.DenySkills)
		for _, l := range srv.LockedSkills {
			sk := decl.Skill{Name: decl.ExposedName(name, r.Sep(), l.Name), Server: name, Original: l.Name}
			switch {
			case !f.Permits(l.Name):
				notes = append(notes, fmt.Sprintf("skill %s of server %s (lock file) is kept out by %s", l.Name, name, strings.TrimPrefix(policy, ", ")))
			case !agentAdmits(a, decl.Match, sk.Name):
				notes = append(notes, fmt.Sprintf("skill %s of server %s (lock file) is kept out by tools.allowed", sk.Name, name))
			default:
				rows = append(rows, ExplainedFeature{Name: sk.Name, URI: sk.URI(), Reason: fmt.Sprintf("server %s serves it as %s (lock file; %s)%s", name, l.Name, via, policy)})
			}
		}
	}
	return rows, notes
}

// serverVia names the use entries that bring a server's features.
func serverVia(p *Pool, uses []decl.Use, server string, inStep bool) string {
	var via []string
	for i, u := range uses {
		switch {
		case u.Kind == decl.UseServer && u.Name == server:
			via = append(via, fmt.Sprintf("tools.use[%d] server.%s", i, server))
		case u.Kind == decl.UseBundle && p.bundles[u.Name] != nil && p.bundles[u.Name].Server == server && p.bundles[u.Name].Mode != "meta":
			if inStep {
				via = append(via, fmt.Sprintf("the step's bundle.%s (server %s)", u.Name, server))
			} else {
				via = append(via, fmt.Sprintf("tools.use[%d] bundle.%s (server %s)", i, u.Name, server))
			}
		}
	}
	return strings.Join(via, ", ")
}
