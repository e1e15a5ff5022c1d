package hcl

import (
	"strings"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Resolution of declared prompts and resources.

func (r *resolver) resolvePrompts() []*ir.Prompt {
	return inNameOrder(r.prompts, func(p *promptBlock) *ir.Prompt {
		prompt := &ir.Prompt{Name: p.Name, GoName: ir.GoName(p.Name), Description: p.Description, Messages: p.Messages, Range: p.DeclRange}
		for _, a := range p.Arguments {
			prompt.Arguments = append(prompt.Arguments, a.PromptArgument)
		}
		return prompt
	})
}

// resolveResources reports URIs declared twice (at the second
// declaration, in file order): a host reads a resource by its URI.
func (r *resolver) resolveResources() []*ir.Resource {
	seen := map[string]*resourceBlock{}
	for _, x := range r.cfg.resources {
		if r.resources[x.Name] != x || x.URI == "" {
			continue // a duplicate name, already reported
		}
		if prev := seen[x.URI]; prev != nil {
			r.errorf(x.URIRange, x.DeclRange, "Duplicate URI", "Resource %q has the URI %q of resource %q, already defined at %s; a host reads resources by URI, so each needs its own.", x.Name, x.URI, prev.Name, shortPos(prev.URIRange))
			continue
		}
		seen[x.URI] = x
	}
	return inNameOrder(r.resources, func(x *resourceBlock) *ir.Resource {
		return &ir.Resource{Name: x.Name, GoName: ir.GoName(x.Name), URI: x.URI, Description: x.Description, MIMEType: x.MIMEType, Text: x.Text, Range: x.DeclRange}
	})
}

// featureCouldMatch reports whether an entry of tools.allowed may admit a
// prompt or resource: a declared one by name (or URI), or one a trusted
// server brings at run time ("<server><sep>…" prompts; resource URIs are
// not known before then, so any entry with a scheme may).
func (r *resolver) featureCouldMatch(pattern string) bool {
	for name, p := range r.prompts {
		if decl.Match(pattern, name) || pattern == p.Name {
			return true
		}
	}
	for name, x := range r.resources {
		if decl.Match(pattern, name) || decl.MatchURI(pattern, x.URI) || pattern == x.URI {
			return true
		}
	}
	if uriSchemeRe.MatchString(pattern) {
		return len(r.cfg.servers) > 0
	}
	lit := decl.LiteralPrefix(pattern)
	for _, s := range r.cfg.servers {
		prefix := s.Name + r.sep
		if s.Trusted && (strings.HasPrefix(lit, prefix) || strings.HasPrefix(prefix, lit) && decl.IsGlob(pattern)) {
			return true
		}
	}
	return false
}
