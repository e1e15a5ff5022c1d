package hcl

import (
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// Values used when the defaults block leaves a setting out.
const (
	defaultToolTimeout      = 30 * time.Second
	defaultResponseMaxBytes = 100000
	defaultStartupTimeout   = 10 * time.Second
	defaultMaxDepth         = 2
	defaultInitConcurrency  = 4
)

var defaultsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "tool_timeout"}, {Name: "response_max_bytes"}, {Name: "startup_timeout"},
		{Name: "max_depth"}, {Name: "context_budget"}, {Name: "init_concurrency"},
		{Name: "model"},
	},
}

// decodeDefaults reads the defaults block into ir.Defaults with every unset
// value filled in, and the default model's reference (resolved later).
func decodeDefaults(block *hcl.Block, ctx *hcl.EvalContext) (*ir.Defaults, *ref, hcl.Diagnostics) {
	d := newDefaults()
	d.Range = block.DefRange
	content, diags := block.Body.Content(defaultsSchema)
	attrs := content.Attributes
	dur := func(name string, dst *time.Duration) {
		if a := attrs[name]; a != nil {
			v, dd := evalDuration(a.Expr, ctx)
			diags = append(diags, dd...)
			if !dd.HasErrors() {
				*dst = v
			}
		}
	}
	num := func(name string, min int64, dst *int) {
		if a := attrs[name]; a != nil {
			v, dd := evalInt(a.Expr, ctx, min, math.MaxInt32)
			diags = append(diags, dd...)
			if !dd.HasErrors() {
				*dst = v
			}
		}
	}
	dur("tool_timeout", &d.ToolTimeout)
	dur("startup_timeout", &d.StartupTimeout)
	num("response_max_bytes", 1, &d.ResponseMaxBytes)
	num("max_depth", 0, &d.MaxDepth)
	num("context_budget", 0, &d.ContextBudget)
	num("init_concurrency", 1, &d.InitConcurrency)
	m, dd := decodeDefaultModel(attrs)
	diags = append(diags, dd...)
	return d, m, diags
}

func newDefaults() *ir.Defaults {
	return &ir.Defaults{
		ToolTimeout:      defaultToolTimeout,
		ResponseMaxBytes: defaultResponseMaxBytes,
		StartupTimeout:   defaultStartupTimeout,
		MaxDepth:         defaultMaxDepth,
		InitConcurrency:  defaultInitConcurrency,
	}
}
