package hcl

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// decodeServerFeatures reads which of a server's prompts, resources and
// skills agents may see: allow_prompts, deny_prompts, allow_resources,
// deny_resources, allow_skills and deny_skills.
func decodeServerFeatures(s *serverBlock, attrs hcl.Attributes, ctx *hcl.EvalContext, ctxRange hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, l := range []struct {
		attr string
		dst  *[]str
	}{{"allow_prompts", &s.AllowPrompts}, {"deny_prompts", &s.DenyPrompts}, {"allow_resources", &s.AllowResources}, {"deny_resources", &s.DenyResources}, {"allow_skills", &s.AllowSkills}, {"deny_skills", &s.DenySkills}} {
		a := attrs[l.attr]
		if a == nil {
			continue
		}
		v, d := evalStrings(a.Expr, ctx)
		diags = append(diags, d...)
		diags = append(diags, checkGlobs(v)...)
		*l.dst = v
		if !s.Trusted && (l.attr == "allow_prompts" || l.attr == "allow_resources" || l.attr == "allow_skills") {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Untrusted server with " + l.attr,
				Detail:   fmt.Sprintf("Server %q is untrusted, and untrusted servers expose no prompts, resources or skills; remove %s or trust the server.", s.Name, l.attr),
				Subject:  a.NameRange.Ptr(),
				Context:  ctxRange.Ptr(),
			})
		}
	}
	diags = append(diags, checkFeatureAllowDeny(s.AllowPrompts, s.DenyPrompts, "prompts", decl.Match, ctxRange)...)
	diags = append(diags, checkFeatureAllowDeny(s.AllowResources, s.DenyResources, "resources", decl.MatchURI, ctxRange)...)
	diags = append(diags, checkFeatureAllowDeny(s.AllowSkills, s.DenySkills, "skills", decl.Match, ctxRange)...)
	return diags
}

// checkFeatureAllowDeny is checkAllowDeny for prompt and resource lists.
func checkFeatureAllowDeny(allow, deny []str, what string, match func(pattern, name string) bool, ctxRange hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, a := range allow {
		for _, d := range deny {
			if a.Val == d.Val || (!decl.IsGlob(a.Val) && match(d.Val, a.Val)) {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Overlapping allow and deny",
					Detail:   fmt.Sprintf("%q in deny_%s removes %q, which allow_%s lists at %s; remove it from one of the lists.", d.Val, what, a.Val, what, shortPos(a.Range)),
					Subject:  d.Range.Ptr(),
					Context:  ctxRange.Ptr(),
				})
				break
			}
		}
	}
	return diags
}
