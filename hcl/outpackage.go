package hcl

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// OutPackage is the Go package of code generated into outDir when the
// spec names none: the package of the Go files already there (gen.go with
// its go:generate line, say), so that the generated files join it, else
// outDir's name. `generate -o . ./spec` next to package mytools then
// writes package mytools, not package spec.
func OutPackage(outDir string) string {
	files, _ := filepath.Glob(filepath.Join(outDir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_gen.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.PackageClauseOnly); err == nil && parsed.Name.Name != "main" {
			return parsed.Name.Name
		}
	}
	abs, err := filepath.Abs(outDir)
	if err != nil {
		abs = outDir
	}
	return packageName(filepath.Base(abs))
}
