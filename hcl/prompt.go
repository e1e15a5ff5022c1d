package hcl

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// promptBlock is a declared prompt: arguments and the messages they fill.
type promptBlock struct {
	Name        string
	NameRange   hcl.Range
	Description string
	Arguments   []promptArgument
	Messages    []ir.PromptMessage
	DeclRange   hcl.Range
}

type promptArgument struct {
	ir.PromptArgument
	NameRange hcl.Range
}

var (
	promptRoles  = []string{"assistant", "user"}
	promptSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "template"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "argument", LabelNames: []string{"name"}}, {Type: "message"}},
	}
	promptArgumentSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "required"}},
	}
	promptMessageSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "role", Required: true}, {Name: "text", Required: true}},
	}
)

func decodePrompt(block *hcl.Block, ctx *hcl.EvalContext) (*promptBlock, hcl.Diagnostics) {
	p := &promptBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange}
	diags := checkName("prompt", p.Name, p.NameRange)
	content, d := block.Body.Content(promptSchema)
	diags = append(diags, d...)
	errAt := func(sev hcl.DiagnosticSeverity, rng hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: sev, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: block.DefRange.Ptr()})
	}
	readAttr(attrReader{content.Attributes, ctx, &diags}, "description", evalString, &p.Description)
	type text struct {
		val string
		rng hcl.Range
	}
	var texts []text
	template := content.Attributes["template"]
	if template != nil {
		v, d := evalString(template.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			p.Messages = append(p.Messages, ir.PromptMessage{Role: "user", Text: v})
			texts = append(texts, text{v, template.Expr.Range()})
		}
	}
	args := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		switch b.Type {
		case "argument":
			arg := promptArgument{PromptArgument: ir.PromptArgument{Name: b.Labels[0]}, NameRange: b.LabelRanges[0]}
			if prev, dup := args[arg.Name]; dup {
				errAt(hcl.DiagError, arg.NameRange, "Duplicate argument", fmt.Sprintf("Prompt %q already has an argument %q at %s.", p.Name, arg.Name, shortPos(prev)))
				continue
			}
			args[arg.Name] = arg.NameRange
			diags = append(diags, checkName("argument", arg.Name, arg.NameRange)...)
			ac, d := b.Body.Content(promptArgumentSchema)
			diags = append(diags, d...)
			in := attrReader{ac.Attributes, ctx, &diags}
			readAttr(in, "description", evalString, &arg.Description)
			readAttr(in, "required", evalBool, &arg.Required)
			p.Arguments = append(p.Arguments, arg)
		case "message":
			if template != nil {
				errAt(hcl.DiagError, b.DefRange, "Template and messages both set", fmt.Sprintf("Prompt %q has a template (at %s) and message blocks; a template is one user message, so write either the template or the messages.", p.Name, shortPos(template.NameRange)))
				continue
			}
			mc, d := b.Body.Content(promptMessageSchema)
			diags = append(diags, d...)
			var m ir.PromptMessage
			if a := mc.Attributes["role"]; a != nil {
				v, d := evalEnum(a.Expr, ctx, "role", promptRoles)
				diags = append(diags, d...)
				m.Role = v
			}
			if a := mc.Attributes["text"]; a != nil {
				v, d := evalString(a.Expr, ctx)
				diags = append(diags, d...)
				if !d.HasErrors() {
					m.Text = v
					texts = append(texts, text{v, a.Expr.Range()})
				}
			}
			p.Messages = append(p.Messages, m)
		}
	}
	if template == nil && len(p.Messages) == 0 && !diags.HasErrors() {
		errAt(hcl.DiagError, p.NameRange, "Missing template", fmt.Sprintf("Prompt %q needs a template or at least one message block.", p.Name))
	}
	names := make([]string, 0, len(p.Arguments))
	for _, a := range p.Arguments {
		names = append(names, a.Name)
	}
	used := map[string]bool{}
	for _, t := range texts {
		for _, ph := range decl.Placeholders(t.val) {
			used[ph] = true
			if _, ok := args[ph]; !ok {
				detail := fmt.Sprintf("The text uses {%s}, but prompt %q has no argument %q.", ph, p.Name, ph)
				if s := didYouMean(ph, names); s != "" {
					detail += s
				} else {
					detail += fmt.Sprintf(" Declare it with argument %q { … }.", ph)
				}
				errAt(hcl.DiagError, t.rng, "Unknown placeholder", detail)
			}
		}
	}
	for _, a := range p.Arguments {
		if !used[a.Name] {
			errAt(hcl.DiagWarning, a.NameRange, "Unused argument", fmt.Sprintf("Prompt %q declares argument %q, but no template or message uses {%s}; the value a host sends is dropped.", p.Name, a.Name, a.Name))
		}
	}
	return p, diags
}
