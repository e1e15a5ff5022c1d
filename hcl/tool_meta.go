package hcl

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// toolMeta is what a declared tool shows in tools/list besides its name,
// description and input schema.
type toolMeta struct {
	Title             string
	Annotations       *ir.ToolAnnotations
	OutputSchema      json.RawMessage
	OutputSchemaRange hcl.Range
	// AlwaysLoad asks hosts that search tools themselves to keep the tool
	// loaded (Claude Code's _meta["anthropic/alwaysLoad"]).
	AlwaysLoad bool
	// Task says the tool runs as an MCP task for hosts that declare the
	// Tasks extension: "optional" or "required" (MCP's taskSupport),
	// "after_input" (input-required rounds first, then a task); "" for a
	// plain call.
	Task      string
	TaskRange hcl.Range
}

var annotationsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "read_only"}, {Name: "destructive"}, {Name: "idempotent"}, {Name: "open_world"}},
}

// decode reads title, the annotations block and output_schema of a tool
// block's content.
func (m *toolMeta) decode(content *hcl.BodyContent, block *hcl.Block, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if a := content.Attributes["title"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		m.Title = strings.TrimSpace(v)
	}
	var seen *hcl.Block
	for _, b := range content.Blocks {
		if b.Type != "annotations" {
			continue
		}
		if seen != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate annotations block",
				Detail:  fmt.Sprintf("Tool %q already has an annotations block at %s.", block.Labels[0], shortPos(seen.DefRange)),
				Subject: b.DefRange.Ptr(), Context: block.DefRange.Ptr()})
			continue
		}
		seen = b
		body, d := b.Body.Content(annotationsSchema)
		diags = append(diags, d...)
		m.Annotations = &ir.ToolAnnotations{}
		for _, f := range []struct {
			name string
			dst  **bool
		}{
			{"read_only", &m.Annotations.ReadOnly}, {"destructive", &m.Annotations.Destructive},
			{"idempotent", &m.Annotations.Idempotent}, {"open_world", &m.Annotations.OpenWorld},
		} {
			if a := body.Attributes[f.name]; a != nil {
				v, d := evalBool(a.Expr, ctx)
				diags = append(diags, d...)
				*f.dst = &v
			}
		}
	}
	readAttr(attrReader{content.Attributes, ctx, &diags}, "always_load", evalBool, &m.AlwaysLoad)
	if a := content.Attributes["task"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		m.Task, m.TaskRange = v, a.Expr.Range()
		if !d.HasErrors() && v != "optional" && v != "required" && v != "after_input" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid task support",
				Detail:  fmt.Sprintf("task of tool %q is %q; it must be \"optional\" (a task when the host supports tasks), \"required\" (only as a task) or \"after_input\" (asks in input-required rounds first, a task from runtime.ContinueAsTask on).", block.Labels[0], v),
				Subject: a.Expr.Range().Ptr(), Context: block.DefRange.Ptr()})
			m.Task = ""
		}
	}
	if a := content.Attributes["output_schema"]; a != nil {
		v, d := decodeOutputSchema(a.Expr, ctx)
		diags = append(diags, d...)
		m.OutputSchema, m.OutputSchemaRange = v, a.Expr.Range()
	}
	return diags
}

// decodeOutputSchema reads output_schema, an HCL object or a JSON string
// (file("schema.json")), into compact JSON: a JSON Schema object.
func decodeOutputSchema(expr hcl.Expression, ctx *hcl.EvalContext) (json.RawMessage, hcl.Diagnostics) {
	return decodeSchema(expr, ctx, "output", nil)
}
