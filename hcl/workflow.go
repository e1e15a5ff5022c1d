package hcl

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// workflowBlock is a routing table: workflow → role → step → bundles.
type workflowBlock struct {
	Name      string
	NameRange hcl.Range
	Roles     []*roleBlock
	DeclRange hcl.Range
}

type roleBlock struct {
	Name      string
	NameRange hcl.Range
	Steps     []*stepBlock
	DeclRange hcl.Range
}

type stepBlock struct {
	Name      string
	NameRange hcl.Range
	Bundles   []ref
	DeclRange hcl.Range
}

var (
	workflowSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "role", LabelNames: []string{"name"}}}}
	roleSchema     = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "step", LabelNames: []string{"name"}}}}
	stepSchema     = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "bundles", Required: true}}}
)

func decodeWorkflow(block *hcl.Block, ctx *hcl.EvalContext) (*workflowBlock, hcl.Diagnostics) {
	w := &workflowBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange}
	diags := checkName("workflow", w.Name, w.NameRange)
	content, d := block.Body.Content(workflowSchema)
	diags = append(diags, d...)
	roles := map[string]*roleBlock{}
	for _, rb := range content.Blocks {
		r := &roleBlock{Name: rb.Labels[0], NameRange: rb.LabelRanges[0], DeclRange: rb.DefRange}
		diags = append(diags, checkName("role", r.Name, r.NameRange)...)
		if prev := roles[r.Name]; prev != nil {
			diags = append(diags, duplicate("role", r.Name, r.NameRange, prev.NameRange, rb.DefRange))
		} else {
			roles[r.Name] = r
			w.Roles = append(w.Roles, r)
		}
		rc, d := rb.Body.Content(roleSchema)
		diags = append(diags, d...)
		steps := map[string]*stepBlock{}
		for _, sb := range rc.Blocks {
			s := &stepBlock{Name: sb.Labels[0], NameRange: sb.LabelRanges[0], DeclRange: sb.DefRange}
			diags = append(diags, checkName("step", s.Name, s.NameRange)...)
			if prev := steps[s.Name]; prev != nil {
				diags = append(diags, duplicate("step", s.Name, s.NameRange, prev.NameRange, sb.DefRange))
			} else {
				steps[s.Name] = s
				r.Steps = append(r.Steps, s)
			}
			sc, d := sb.Body.Content(stepSchema)
			diags = append(diags, d...)
			if at := sc.Attributes["bundles"]; at != nil {
				v, d := decodeRefs(at.Expr, "bundle")
				diags = append(diags, d...)
				s.Bundles = v
			}
		}
		if len(rc.Blocks) == 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Role without steps", Detail: fmt.Sprintf("Role %q routes no step, so it can use no bundle.", r.Name), Subject: r.NameRange.Ptr(), Context: rb.DefRange.Ptr()})
		}
	}
	return w, diags
}

// duplicate is the diagnostic for a name declared twice; Subject is the
// second declaration's label.
func duplicate(kind, name string, rng, prev, ctxRange hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate " + kind,
		Detail:   fmt.Sprintf("%s %q is already defined at %s.", strings.ToUpper(kind[:1])+kind[1:], name, shortPos(prev)),
		Subject:  rng.Ptr(),
		Context:  ctxRange.Ptr(),
	}
}
