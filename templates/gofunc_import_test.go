package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// goodTool is a valid Go function tool body for any package.
const goodTool = `
import "context"

type Args struct{ Q string }

func Good(ctx context.Context, in Args) (string, error) { return in.Q, nil }
`

// importModule writes a module example.com/m with a valid tool function in
// a program, in an internal package under lib/, in a root internal package
// and in the spec (output) directory itself, and returns its root.
func importModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                "module example.com/m\n\ngo 1.26\n",
		"cmd/tool/main.go":      "package main\n" + goodTool + "\nfunc main() {}\n",
		"lib/internal/x/x.go":   "package x\n" + goodTool,
		"lib/lib.go":            "package lib\n",
		"internal/y/y.go":       "package y\n" + goodTool,
		"spec/tools.go":         "package spec\n" + goodTool,
		"spec/main.hcl":         "",
		"other/internal/z/z.go": "package z\n" + goodTool,
		"other/gen/placeholder": "",
	}
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func importSpec(dir string, paths ...string) *ir.Spec {
	spec := &ir.Spec{Dir: dir, Package: "spec"}
	for i, p := range paths {
		name := "t" + string(rune('a'+i))
		rng := hcl.Range{Filename: "main.hcl", Start: hcl.Pos{Line: i + 1, Column: 3}, End: hcl.Pos{Line: i + 1, Column: 30}}
		spec.Tools = append(spec.Tools, &ir.Tool{
			Name: name, GoName: ir.GoName(name), Kind: ir.KindGo,
			Go:    &ir.GoFunc{ImportPath: p, Func: "Good", Range: rng},
			Range: rng,
		})
		spec.Catalog = append(spec.Catalog, &ir.CatalogTool{Name: name, Kind: ir.KindGo})
	}
	return spec
}

// TestLoadGoToolsNotImportable: a tool in package main, in an internal
// package outside the generated package's tree, or in the generated package
// itself used to pass generate and then fail go build.
func TestLoadGoToolsNotImportable(t *testing.T) {
	root := importModule(t)
	spec := importSpec(filepath.Join(root, "spec"),
		"example.com/m/cmd/tool",       // a program
		"example.com/m/lib/internal/x", // internal to example.com/m/lib
		"example.com/m/spec",           // the generated package itself
		"example.com/m/internal/y",     // internal to the module: importable
	)
	goTools, diags := LoadGoTools(spec)
	want := []struct{ summary, detail string }{
		{"Go package not importable", "is a program (package main)"},
		{"Go package not importable", `only packages under "example.com/m/lib" may import it, and the generated package is "example.com/m/spec"`},
		{"Go tool in the generated package", "would import its own package"},
	}
	if len(diags) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%v", len(diags), len(want), diags)
	}
	for i, w := range want {
		d := diags[i]
		if d.Summary != w.summary || !strings.Contains(d.Detail, w.detail) {
			t.Errorf("%s: got %q: %q; want %q containing %q", spec.Tools[i].Go.ImportPath, d.Summary, d.Detail, w.summary, w.detail)
		}
		if d.Subject == nil || *d.Subject != spec.Tools[i].Go.Range {
			t.Errorf("%s: subject %v, want the go attribute's range", spec.Tools[i].Go.ImportPath, d.Subject)
		}
	}
	if g := goTools.Tool(spec.Tools[3].Name); g == nil || g.ArgsType != "example.com/m/internal/y.Args" {
		t.Errorf("the module's own internal package did not resolve: %+v", g)
	}
}

// TestLoadGoToolsOutDir: the internal rule is checked against where the
// code is generated (-o), not where the spec is.
func TestLoadGoToolsOutDir(t *testing.T) {
	root := importModule(t)
	spec := importSpec(filepath.Join(root, "spec"), "example.com/m/other/internal/z", "example.com/m/spec")
	spec.OutDir = filepath.Join(root, "other", "gen")
	if _, diags := LoadGoTools(spec); len(diags) != 0 {
		t.Fatalf("generating into other/gen: %v", diags)
	}

	spec = importSpec(filepath.Join(root, "spec"), "example.com/m/other/internal/z")
	_, diags := LoadGoTools(spec)
	if len(diags) != 1 || diags[0].Summary != "Go package not importable" {
		t.Fatalf("generating into spec/: got %v, want one not-importable diagnostic", diags)
	}
}

func TestInternalParent(t *testing.T) {
	for _, c := range []struct {
		path, parent string
		ok           bool
	}{
		{"example.com/m/a", "", false},
		{"example.com/m/internal", "example.com/m", true},
		{"example.com/m/internal/x", "example.com/m", true},
		{"example.com/m/a/internal/b/internal/c", "example.com/m/a/internal/b", true},
		{"internal/x", "", true},
		{"example.com/m/internals/x", "", false},
	} {
		parent, ok := internalParent(c.path)
		if parent != c.parent || ok != c.ok {
			t.Errorf("internalParent(%q) = %q, %v; want %q, %v", c.path, parent, ok, c.parent, c.ok)
		}
	}
}
