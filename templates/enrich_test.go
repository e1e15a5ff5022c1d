package templates_test

import (
	"os"
	"path/filepath"
	"testing"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/templates"
)

// Only a spec that opts in (enrich { at_run_time = true }) gives the
// registry a run-time enrichment; build-time enrichment alone does not.
func TestRunTimeEnrichmentOptIn(t *testing.T) {
	for _, tc := range []struct {
		attrs string
		want  *decl.Enrich
	}{
		{"", nil},
		{"at_run_time = false", nil},
		{"at_run_time = true\nqueries = 4\nconcurrency = 2", &decl.Enrich{Model: "fast", Queries: 4, Concurrency: 2}},
	} {
		dir := t.TempDir()
		spec := `toolgen {
  enrich {
    model = model.fast
    ` + tc.attrs + `
  }
}
model "fast" {
  provider = "openai"
  name     = "gpt-4.1-mini"
}
`
		if err := os.WriteFile(filepath.Join(dir, "spec.hcl"), []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		s, _, diags := spechcl.LoadDir(dir)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := templates.RuntimeRegistry(s, nil).Enrich
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%q: Enrich = %+v, want %+v", tc.attrs, got, tc.want)
		}
	}
}
