package hcl

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// enrichBlock is toolgen { enrich { … } }: which model `toolgen enrich`
// asks for each tool's search queries, and how.
type enrichBlock struct {
	Model       ref
	Queries     int // 0: the enrich package's default
	Concurrency int // 0: the enrich package's default
	AtRunTime   bool
	DeclRange   hcl.Range
}

// Bounds of queries and concurrency; internal/enrich checks the same
// bounds again (MaxQueries).
const (
	maxEnrichQueries     = 30
	maxEnrichConcurrency = 64
)

var enrichSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "model", Required: true}, {Name: "queries"}, {Name: "concurrency"}, {Name: "at_run_time"}},
}

func decodeEnrich(block *hcl.Block, ctx *hcl.EvalContext) (*enrichBlock, hcl.Diagnostics) {
	e := &enrichBlock{DeclRange: block.DefRange}
	content, diags := block.Body.Content(enrichSchema)
	in := attrReader{content.Attributes, ctx, &diags}
	if a := content.Attributes["model"]; a != nil {
		r, d := decodeRef(a.Expr, "model")
		diags = append(diags, d...)
		if !d.HasErrors() {
			e.Model = r
		}
	}
	readAttr(in, "queries", intIn(1, maxEnrichQueries), &e.Queries)
	readAttr(in, "concurrency", intIn(1, maxEnrichConcurrency), &e.Concurrency)
	readAttr(in, "at_run_time", evalBool, &e.AtRunTime)
	return e, diags
}

// resolveEnrich checks the enrich block's model reference.
func (r *resolver) resolveEnrich() *ir.Enrich {
	t := r.cfg.toolgen
	if t == nil || t.Enrich == nil {
		return nil
	}
	e := t.Enrich
	if e.Model.Name == "" || !r.lookup(e.Model) {
		return nil
	}
	return &ir.Enrich{Model: e.Model.Name, Queries: e.Queries, Concurrency: e.Concurrency, AtRunTime: e.AtRunTime, Range: e.DeclRange}
}
