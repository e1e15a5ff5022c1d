package templates

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// CatalogParams is a catalog tool's top-level parameter names as the
// index and the enrichment hash see them: a Go tool's from its
// type-checked argument type, any other tool's from the spec.
func (g *GoTools) CatalogParams(t *ir.CatalogTool) []string {
	if gt := g.Tool(t.Name); gt != nil {
		return gt.Params
	}
	return t.Params
}

// enrichmentDrift warns about every catalog tool whose name, description
// or parameters changed since its stored queries were written: they are
// still indexed, but may describe the tool as it was. It runs after the Go
// tools are type-checked, whose parameters only that phase knows.
func enrichmentDrift(spec *ir.Spec, goTools *GoTools) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, t := range spec.Catalog {
		if t.EnrichHash == "" || t.EnrichHash == search.EnrichmentHash(t.Name, t.Description, goTools.CatalogParams(t)) {
			continue
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Tool changed since enrichment",
			Detail:   fmt.Sprintf("Tool %q has another description or other parameters than when its search queries were written (the hash in %s differs). The stored queries are still indexed; enrich the spec again to refresh them.", t.Name, t.EnrichRange.Filename),
			Subject:  t.EnrichRange.Ptr(),
		})
	}
	return diags
}
