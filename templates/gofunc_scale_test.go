package templates

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// goToolsModule writes a module whose package tools holds n Go tool
// functions, each with its own documented Args struct, and returns the
// spec of its n tools.
func goToolsModule(tb testing.TB, n int) func() *ir.Spec {
	tb.Helper()
	dir := tb.TempDir()
	var src strings.Builder
	src.WriteString("package tools\n\nimport \"context\"\n\ntype Result struct {\n\tOK bool `json:\"ok\"`\n}\n")
	for i := range n {
		fmt.Fprintf(&src, "\n// Args%d are the arguments of tool %d.\ntype Args%d struct {\n\t// Path is the file to read.\n\tPath string `json:\"path\"`\n\tLimit int `json:\"limit,omitempty\"` // at most this many lines\n}\n\nfunc Run%d(ctx context.Context, a Args%d) (Result, error) { return Result{}, nil }\n", i, i, i, i, i)
	}
	for name, content := range map[string]string{
		"go.mod":         "module example.com/bench\n\ngo 1.24\n",
		"tools/tools.go": src.String(),
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return func() *ir.Spec {
		spec := &ir.Spec{Dir: filepath.Join(dir, "spec"), OutDir: filepath.Join(dir, "gen"), Package: "gen"}
		for i := range n {
			name := fmt.Sprintf("run%d", i)
			rng := hcl.Range{Filename: "tools.hcl", Start: hcl.Pos{Line: i + 1, Column: 1}}
			spec.Tools = append(spec.Tools, &ir.Tool{
				Name: name, GoName: ir.GoName(name), Kind: ir.KindGo, Range: rng,
				Go: &ir.GoFunc{ImportPath: "example.com/bench/tools", Func: fmt.Sprintf("Run%d", i), Range: rng},
			})
			spec.Catalog = append(spec.Catalog, &ir.CatalogTool{Name: name, Kind: ir.KindGo})
		}
		return spec
	}
}

// BenchmarkLoadGoTools type-checks n Go tools of one package and
// derives their schemas: the cost must grow with n (one package load,
// each tool's own work), not with n².
func BenchmarkLoadGoTools(b *testing.B) {
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			newSpec := goToolsModule(b, n)
			b.ReportAllocs()
			for b.Loop() {
				spec := newSpec()
				if _, diags := LoadGoTools(spec); diags.HasErrors() {
					b.Fatal(diags)
				}
				if len(spec.Catalog[n-1].Params) != 2 {
					b.Fatalf("params %v", spec.Catalog[n-1].Params)
				}
			}
		})
	}
}

// TestLoadGoToolsLinear: four times the Go tools of one package must
// cost about four times the allocations. Each tool used to walk the whole
// package's syntax for field docs and the whole catalog for its entry:
// quadratic, 5,000 tools took minutes. Counted in allocations, not time.
func TestLoadGoToolsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two generated packages with go list")
	}
	allocs := func(n int) float64 {
		newSpec := goToolsModule(t, n)
		return testing.AllocsPerRun(1, func() {
			if _, diags := LoadGoTools(newSpec()); diags.HasErrors() {
				t.Fatal(diags)
			}
		})
	}
	small, big := allocs(100), allocs(400)
	if ratio := big / small; ratio > 6 {
		t.Errorf("4x the Go tools cost %.1fx the allocations (%.0f → %.0f); resolving is not linear", ratio, small, big)
	}
}
