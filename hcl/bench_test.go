package hcl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// syntheticSpec is a spec with n declared tools, n/100 agents each using
// 100 tool references and a glob, and a locked server with n tools.
func syntheticSpec(n int) map[string][]byte {
	var spec, lock strings.Builder
	spec.WriteString("policy \"p\" {\n  builtin = \"fs_read\"\n  allowed_paths = [\".\"]\n}\nserver \"big\" {\n  command = \"big-mcp\"\n}\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&spec, "tool \"tool_%d\" {\n  description = \"Tool number %d reads things.\"\n  policy = policy.p\n  keywords = [\"k%d\"]\n}\n", i, i, i%50)
	}
	for a := 0; a < n/100; a++ {
		fmt.Fprintf(&spec, "agent \"agent_%d\" {\n  tools {\n    use = [", a)
		for j := 0; j < 100; j++ {
			fmt.Fprintf(&spec, "tool.tool_%d, ", a*100+j)
		}
		fmt.Fprintf(&spec, "\"big__t%d*\"]\n    allowed = [\"tool_%d*\", \"big__*\"]\n  }\n}\n", a, a)
	}
	lock.WriteString(`{"version":1,"servers":{"big":{"tools":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			lock.WriteString(",")
		}
		fmt.Fprintf(&lock, `{"name":"t%d","description":"Server tool %d.","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}},"hash":"h"}`, i, i)
	}
	lock.WriteString("]}}}")
	return map[string][]byte{"spec.hcl": []byte(spec.String()), LockFileName: []byte(lock.String())}
}

// BenchmarkLoad10k loads a 10k-tool spec with a 10k-tool lock file.
func BenchmarkLoad10k(b *testing.B) {
	files := syntheticSpec(10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, diags := LoadFiles("big", files); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// BenchmarkParseOnly10k is BenchmarkLoad10k's baseline: HCL parsing alone.
func BenchmarkParseOnly10k(b *testing.B) {
	files := syntheticSpec(10000)
	b.ReportAllocs()
	for b.Loop() {
		hclparse.NewParser().ParseHCL(files["spec.hcl"], "spec.hcl")
	}
}
