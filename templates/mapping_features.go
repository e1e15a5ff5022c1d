package templates

import (
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// featureValues maps the declared prompts and resources.
func featureValues(spec *ir.Spec) ([]decl.Prompt, []decl.Resource) {
	var prompts []decl.Prompt
	for _, p := range spec.Prompts {
		out := decl.Prompt{Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			out.Arguments = append(out.Arguments, decl.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		for _, m := range p.Messages {
			out.Messages = append(out.Messages, decl.PromptMessage{Role: m.Role, Text: m.Text})
		}
		prompts = append(prompts, out)
	}
	var resources []decl.Resource
	for _, r := range spec.Resources {
		resources = append(resources, decl.Resource{Name: r.Name, URI: r.URI, Description: r.Description, MIMEType: r.MIMEType, Text: r.Text})
	}
	return prompts, resources
}
