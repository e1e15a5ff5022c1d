package templates

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// TestEnrichmentDrift: a tool's stored queries are stale when its name,
// description or parameters changed since they were written; a Go tool's
// parameters are those of its type-checked argument type, which only
// generate's Go phase knows (the spec lists none).
func TestEnrichmentDrift(t *testing.T) {
	spec := goSpec("Good")
	good := spec.Catalog[0]
	good.Description = "A good tool."
	goTools, diags := LoadGoTools(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	params := goTools.CatalogParams(good)
	if len(params) < 5 || !strings.Contains(strings.Join(params, " "), "desc") {
		t.Fatalf("Go tool parameters %v", params)
	}
	declared := &ir.CatalogTool{Name: "read_file", Description: "Read a UTF-8 text file.", Params: []string{"path"}}
	spec.Catalog = append(spec.Catalog, declared)
	rng := hcl.Range{Filename: "spec/toolgen.enrich.json", Start: hcl.Pos{Line: 3, Column: 5}}
	for _, tc := range []struct {
		name            string
		goHash, rfHash  string
		wantWarningsFor []string
	}{
		{"unchanged", search.EnrichmentHash("good", "A good tool.", params), search.EnrichmentHash("read_file", "Read a UTF-8 text file.", []string{"path"}), nil},
		{"enriched without the Go parameters", search.EnrichmentHash("good", "A good tool.", nil), search.EnrichmentHash("read_file", "Read a UTF-8 text file.", []string{"path"}), []string{`"good"`}},
		{"description changed", search.EnrichmentHash("good", "A good tool.", params), search.EnrichmentHash("read_file", "Read a file.", []string{"path"}), []string{`"read_file"`}},
	} {
		good.EnrichHash, good.EnrichRange = tc.goHash, rng
		declared.EnrichHash, declared.EnrichRange = tc.rfHash, rng
		drift := enrichmentDrift(spec, goTools)
		if len(drift) != len(tc.wantWarningsFor) {
			t.Errorf("%s: %d warnings, want %d: %v", tc.name, len(drift), len(tc.wantWarningsFor), drift)
			continue
		}
		for i, d := range drift {
			if d.Severity != hcl.DiagWarning || !strings.Contains(d.Detail, tc.wantWarningsFor[i]) || d.Subject == nil || d.Subject.Start.Line != 3 {
				t.Errorf("%s: %v", tc.name, d)
			}
		}
	}
}
