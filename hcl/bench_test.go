package hcl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
)

func readFixture(b *testing.B, dir string) map[string][]byte {
	b.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*"))
	files := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files[filepath.Base(p)] = data
	}
	return files
}

// BenchmarkParseOnly is the baseline: HCL's own parser over the same files,
// without decoding, resolving or building the IR.
func BenchmarkParseOnly(b *testing.B) {
	files := readFixture(b, "../testdata/specs/valid/design")
	b.ReportAllocs()
	for b.Loop() {
		p := hclparse.NewParser()
		for name, src := range files {
			if filepath.Ext(name) == ".json" {
				p.ParseJSON(src, name)
			} else {
				p.ParseHCL(src, name)
			}
		}
	}
}

// BenchmarkLoad is the whole pipeline on the DESIGN example spec.
func BenchmarkLoad(b *testing.B) {
	files := readFixture(b, "../testdata/specs/valid/design")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, diags := LoadFiles("design", files); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}
