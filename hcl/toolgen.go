package hcl

import (
	"fmt"
	"go/token"
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// toolgenBlock is the `toolgen` block: settings of the generated package.
type toolgenBlock struct {
	Package        string
	PackageRange   hcl.Range
	Separator      string
	SeparatorRange hcl.Range
	Enrich         *enrichBlock // toolgen_enrich.go
	DeclRange      hcl.Range

	// Telemetry links the OpenTelemetry SDK (runtime/telemetry) into the
	// agent binary; without it the binary records nothing.
	Telemetry bool

	// Store names the shared store the binary links ("redis": the Redis
	// client, runtime/store/redis); "" or "memory": none.
	Store string
}

// stores are the values of toolgen { store }.
var stores = []string{"memory", "redis"}

var toolgenSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "package"}, {Name: "separator"}, {Name: "telemetry"}, {Name: "store"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "enrich"}},
}

func decodeToolgen(block *hcl.Block, ctx *hcl.EvalContext) (*toolgenBlock, hcl.Diagnostics) {
	t := &toolgenBlock{DeclRange: block.DefRange}
	content, diags := block.Body.Content(toolgenSchema)
	if a := content.Attributes["package"]; a != nil {
		s, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			t.Package, t.PackageRange = s, a.Expr.Range()
			if !token.IsIdentifier(s) || s == "_" {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid package name",
					Detail:   fmt.Sprintf("%q is not a Go package name; use lower-case letters, digits and underscores.", s),
					Subject:  a.Expr.Range().Ptr(),
					Context:  block.DefRange.Ptr(),
				})
			}
		}
	}
	if a := content.Attributes["separator"]; a != nil {
		s, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			t.Separator, t.SeparatorRange = s, a.Expr.Range()
			if !nameRe.MatchString(s) || len(s) > 8 {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid separator",
					Detail:   fmt.Sprintf("The separator %q must be 1 to 8 letters, digits, underscores or hyphens, so exposed names stay portable.", s),
					Subject:  a.Expr.Range().Ptr(),
				})
			}
		}
	}
	if a := content.Attributes["telemetry"]; a != nil {
		v, d := evalBool(a.Expr, ctx)
		diags = append(diags, d...)
		t.Telemetry = v && !d.HasErrors()
	}
	if a := content.Attributes["store"]; a != nil {
		s, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if slices.Contains(stores, s) {
				t.Store = s
			} else {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Unknown store",
					Detail:   fmt.Sprintf("The store %q is not one toolgen links; want one of %q.%s", s, stores, didYouMean(s, stores)),
					Subject:  a.Expr.Range().Ptr(),
					Context:  block.DefRange.Ptr(),
				})
			}
		}
	}
	for _, b := range content.Blocks {
		if t.Enrich != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Duplicate enrich block",
				Detail:   "A toolgen block holds at most one enrich block.",
				Subject:  b.DefRange.Ptr(),
				Context:  t.Enrich.DeclRange.Ptr(),
			})
			continue
		}
		e, d := decodeEnrich(b, ctx)
		diags = append(diags, d...)
		t.Enrich = e
	}
	return t, diags
}
