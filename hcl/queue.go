package hcl

import (
	"github.com/hashicorp/hcl/v2"
)

// queueBlock is a named concurrency limit shared by servers and tools.
type queueBlock struct {
	Name       string
	NameRange  hcl.Range
	Concurrent int
	DeclRange  hcl.Range
}

var queueSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "concurrent", Required: true}},
}

func decodeQueue(block *hcl.Block, ctx *hcl.EvalContext) (*queueBlock, hcl.Diagnostics) {
	q := &queueBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange}
	diags := checkName("queue", q.Name, q.NameRange)
	content, d := block.Body.Content(queueSchema)
	diags = append(diags, d...)
	readAttr(attrReader{content.Attributes, ctx, &diags}, "concurrent", intIn(1, 1<<16), &q.Concurrent)
	return q, diags
}
