package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// errorSpec writes a spec of n tools, each with one error (an unknown
// policy), so a run renders n diagnostics over a file that grows with n.
func errorSpec(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "tool \"t%d\" {\n  description = \"Tool number %d does something useful with files and more.\"\n  policy      = policy.missing%d\n}\n\n", i, i, i)
	}
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// BenchmarkTextDiagnostics renders n errors of one spec file with source
// snippets (validate's default format). Rendering must grow with n, not
// with n times the file size.
func BenchmarkTextDiagnostics(b *testing.B) {
	for _, n := range []int{100, 300, 1000} {
		b.Run(fmt.Sprintf("errors=%d", n), func(b *testing.B) {
			_, files, diags := spechcl.LoadDir(errorSpec(b, n))
			if len(diags) != n {
				b.Fatalf("%d diagnostics, want %d", len(diags), n)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := writeDiags(io.Discard, "text", diags, files); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
