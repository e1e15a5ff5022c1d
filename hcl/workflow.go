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
	w.Roles = decodeNamed("role", content.Blocks, &diags, func(rb *hcl.Block) *roleBlock {
		r := &roleBlock{Name: rb.Labels[0], NameRange: rb.LabelRanges[0], DeclRange: rb.DefRange}
		rc, d := rb.Body.Content(roleSchema)
		diags = append(diags, d...)
		r.Steps = decodeNamed("step", rc.Blocks, &diags, func(sb *hcl.Block) *stepBlock {
			s := &stepBlock{Name: sb.Labels[0], NameRange: sb.LabelRanges[0], DeclRange: sb.DefRange}
			sc, d := sb.Body.Content(stepSchema)
			diags = append(diags, d...)
			if at := sc.Attributes["bundles"]; at != nil {
				v, d := decodeRefs(at.Expr, "bundle")
				diags = append(diags, d...)
				s.Bundles = v
			}
			return s
		})
		if len(rc.Blocks) == 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Role without steps", Detail: fmt.Sprintf("Role %q routes no step, so it can use no bundle.", r.Name), Subject: r.NameRange.Ptr(), Context: rb.DefRange.Ptr()})
		}
		return r
	})
	return w, diags
}

// decodeNamed decodes nested blocks labeled with a name unique among them:
// each name is checked and a repeated one reported; its block is decoded
// all the same (for its diagnostics) but not kept.
func decodeNamed[T any](kind string, blocks hcl.Blocks, diags *hcl.Diagnostics, decode func(*hcl.Block) T) []T {
	var out []T
	seen := map[string]hcl.Range{}
	for _, b := range blocks {
		name, rng := b.Labels[0], b.LabelRanges[0]
		*diags = append(*diags, checkName(kind, name, rng)...)
		prev, dup := seen[name]
		if dup {
			*diags = append(*diags, duplicate(kind, name, rng, prev, b.DefRange))
		} else {
			seen[name] = rng
		}
		if v := decode(b); !dup {
			out = append(out, v)
		}
	}
	return out
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
