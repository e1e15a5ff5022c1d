package runtime

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// Skills of a session: the declared skills its agent may use (tools.use,
// its globs and its bundles, resolved by toolgen into decl.Agent.Skills),
// or, inside a workflow step, those the step's bundles carry. Their files
// are the session's resources at skill://<skill>/<path>.

// Skills lists the skills the session's agent may use now, sorted by name.
func (s *Session) Skills(ctx context.Context) []*decl.Skill {
	st, err := s.enter(ctx, s.st.Load())
	if err != nil {
		return nil
	}
	defer st.exit()
	return s.skillsOf(ctx, st)
}

// skillsOf is the skills in force on an agent context: the declared ones,
// then those of its servers (upstream_skills.go), each sorted by name. A
// declared skill wins an exposed name an upstream one also takes.
func (s *Session) skillsOf(ctx context.Context, st *agentState) []*decl.Skill {
	names := st.agent.Skills
	uses := st.agent.Use
	st.mu.Lock()
	if st.step != nil {
		names = stepSkills(s.reg, st.step.bundles)
		uses = stepUses(st.step.bundles)
	}
	st.mu.Unlock()
	out := make([]*decl.Skill, 0, len(names))
	for _, n := range names {
		if sk := s.reg.SkillNamed(n); sk != nil {
			out = append(out, sk)
		}
	}
	for _, sk := range s.upstreamSkills(ctx, st, uses) {
		if !slices.ContainsFunc(out, func(d *decl.Skill) bool { return d.Name == sk.Name }) {
			out = append(out, sk)
		}
	}
	return out
}

// stepSkills are the skills a workflow step's bundles carry, sorted.
func stepSkills(reg *Registry, bundles []string) []string {
	var out []string
	for _, b := range reg.Bundles {
		if slices.Contains(bundles, b.Name) {
			for _, sk := range b.Skills {
				if !slices.Contains(out, sk) {
					out = append(out, sk)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// explainSkills lists the skills a session would offer, each with the use
// entries that bring it (inside a step, the step's bundles).
func explainSkills(r *Registry, a *decl.Agent, bundles []string, inStep bool) []ExplainedFeature {
	names := a.Skills
	if inStep {
		names = stepSkills(r, bundles)
	}
	var out []ExplainedFeature
	for _, name := range names {
		var why []string
		if inStep {
			for _, b := range r.Bundles {
				if slices.Contains(bundles, b.Name) && slices.Contains(b.Skills, name) {
					why = append(why, "the step's bundle."+b.Name+" carries it")
				}
			}
		}
		for i, u := range a.Use {
			if inStep {
				break
			}
			switch {
			case u.Kind == decl.UseSkill && u.Name == name:
				why = append(why, fmt.Sprintf("tools.use[%d] skill.%s", i, name))
			case u.Kind == decl.UseGlob && decl.Match(u.Name, name):
				why = append(why, fmt.Sprintf("tools.use[%d] %q matches it", i, u.Name))
			case u.Kind == decl.UseBundle:
				if j := slices.IndexFunc(r.Bundles, func(b decl.Bundle) bool { return b.Name == u.Name }); j >= 0 && slices.Contains(r.Bundles[j].Skills, name) {
					why = append(why, fmt.Sprintf("tools.use[%d] bundle.%s carries it", i, u.Name))
				}
			}
		}
		out = append(out, ExplainedFeature{Name: name, URI: decl.SkillScheme + name + "/" + decl.SkillFileName, Reason: strings.Join(why, "; ")})
	}
	return out
}

// findSkills ranks the agent's skills for tool_find by their names and
// descriptions: an agent has few, so the index is built for each query.
func (s *Session) findSkills(st *agentState, query string, limit int) []FindHit {
	sks := s.skillsOf(st.ctx, st)
	if len(sks) == 0 {
		return nil
	}
	docs := make([]search.Doc, len(sks))
	for i, sk := range sks {
		docs[i] = search.Doc{Name: sk.Name, Description: sk.Description}
	}
	var out []FindHit
	for _, h := range search.Build(docs).Search(query, limit) {
		if h.Score <= 0 {
			continue
		}
		for _, sk := range sks {
			if sk.Name == h.Name {
				out = append(out, FindHit{Name: sk.Name, Description: sk.Description, Score: h.Score, Kind: "skill", URI: sk.URI()})
			}
		}
	}
	return out
}

// mergeHits puts skill hits among tool hits by score (stable: tools first
// on a tie), at most limit in all.
func mergeHits(tools, skills []FindHit, limit int) []FindHit {
	out := append(slices.Clone(tools), skills...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score }) // sort, not slices: see search.Build
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
