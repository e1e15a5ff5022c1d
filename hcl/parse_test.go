package hcl

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// withPieces makes parseHCL cut every file at each block start when on,
// and decode tools on several goroutines, until the test ends; off, both
// are done in one go.
func withPieces(t *testing.T, on bool) {
	oldSize, oldTools := pieceSize, toolsPerWorker
	pieceSize, toolsPerWorker = 1, 1
	if !on {
		pieceSize, toolsPerWorker = 1<<40, 1<<30
	}
	t.Cleanup(func() { pieceSize, toolsPerWorker = oldSize, oldTools })
}

// loadBoth loads a spec with its files parsed and its tools decoded in
// one go and in parallel pieces.
func loadBoth(t *testing.T, load func() (any, map[string]*hcl.File, hcl.Diagnostics)) {
	t.Helper()
	withPieces(t, false)
	wantSpec, wantFiles, wantDiags := load()
	withPieces(t, true)
	gotSpec, gotFiles, gotDiags := load()
	if diff := cmp.Diff(wantSpec, gotSpec, cmpopts.IgnoreUnexported(ir.Spec{})); diff != "" {
		t.Errorf("spec (-one go +pieces):\n%s", diff)
	}
	// Rendering uses the files' bytes and navigation (the "in tool" context).
	if want, got := renderDiags(wantFiles, wantDiags), renderDiags(gotFiles, gotDiags); want != got {
		t.Errorf("diagnostics differ:\none go:\n%s\npieces:\n%s", want, got)
	}
}

// TestParsePiecesMatchOneGo: every fixture loads the same, diagnostics and
// all, when its files are parsed in pieces.
func TestParsePiecesMatchOneGo(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "specs", "*", "*"))
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			loadBoth(t, func() (any, map[string]*hcl.File, hcl.Diagnostics) { return LoadDir(dir) })
		})
	}
}

// TestParsePiecesFallBack: a cut inside a heredoc, a syntax error in a
// later piece and a top-level argument repeated across pieces all give
// exactly the diagnostics and file of parsing in one go.
func TestParsePiecesFallBack(t *testing.T) {
	tool := func(name string) string {
		return "tool \"" + name + "\" {\n  description = \"Tool " + name + ".\"\n  policy = policy.ro\n}\n\n"
	}
	head := "toolgen {\n  package = \"p\"\n}\n\npolicy \"ro\" {\n  builtin = \"fs_read\"\n  allowed_paths = [\".\"]\n}\n"
	cases := map[string]string{
		"clean":   head + tool("a") + tool("b") + tool("c") + tool("d"),
		"heredoc": head + tool("a") + "tool \"h\" {\n  description = <<EOT\nx\n}\ntool \"fake\" {\n}\nEOT\n  policy = policy.ro\n}\n" + tool("b") + tool("c"),
		"error":   head + tool("a") + tool("b") + "tool \"bad\" {\n  description = \n}\n" + tool("c"),
		"comment": head + tool("a") + "/*\n}\ntool \"x\" {\n}\n*/\n" + tool("b") + tool("c"),
		"twice":   "x = 1\n" + head + tool("a") + tool("b") + "x = 2\n" + tool("c"),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			files := map[string][]byte{"spec.hcl": []byte(src)}
			loadBoth(t, func() (any, map[string]*hcl.File, hcl.Diagnostics) { return LoadFiles("d", files) })

			withPieces(t, true)
			pieces := len(pieceStarts([]byte(src), pieceSize))
			if pieces < 3 {
				t.Fatalf("the case is cut into %d pieces, want several", pieces)
			}
			f, diags := parseHCL(hclparse.NewParser(), []byte(src), "spec.hcl")
			want, wantDiags := hclparse.NewParser().ParseHCL([]byte(src), "spec.hcl")
			if diff := cmp.Diff(gotDiags(wantDiags), gotDiags(diags)); diff != "" {
				t.Errorf("parse diagnostics (-one go +pieces):\n%s", diff)
			}
			gb, wb := f.Body.(*hclsyntax.Body), want.Body.(*hclsyntax.Body)
			if gb.SrcRange != wb.SrcRange || gb.EndRange != wb.EndRange || len(gb.Blocks) != len(wb.Blocks) || len(gb.Attributes) != len(wb.Attributes) {
				t.Errorf("body: range %v end %v, %d blocks, %d attributes; want %v %v %d %d",
					gb.SrcRange, gb.EndRange, len(gb.Blocks), len(gb.Attributes), wb.SrcRange, wb.EndRange, len(wb.Blocks), len(wb.Attributes))
			}
			for i := range min(len(gb.Blocks), len(wb.Blocks)) {
				g, w := gb.Blocks[i], wb.Blocks[i]
				if g.Type != w.Type || strings.Join(g.Labels, ",") != strings.Join(w.Labels, ",") || g.Range() != w.Range() || g.Body.SrcRange != w.Body.SrcRange {
					t.Errorf("block %d: %s %v at %v, want %s %v at %v", i, g.Type, g.Labels, g.Range(), w.Type, w.Labels, w.Range())
				}
			}
		})
	}
}

// TestParsePiecesCutInHeredoc: a cut that looks like a block start but is
// inside a heredoc falls back to parsing in one go.
func TestParsePiecesCutInHeredoc(t *testing.T) {
	src := "tool \"h\" {\n  description = <<EOT\nx\n}\n\ntool \"fake\" {\n}\nEOT\n}\n"
	cut := nextBlockStart([]byte(src), 0)
	if cut < 0 || !strings.HasPrefix(src[cut:], "tool \"fake\"") {
		t.Fatalf("cut at %d, want the fake block start", cut)
	}
	f, diags := parsePieces(hclparse.NewParser(), []byte(src), "x.hcl", []int{0, cut})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	blocks := f.Body.(*hclsyntax.Body).Blocks
	if len(blocks) != 1 || blocks[0].Labels[0] != "h" {
		t.Fatalf("got %d blocks, want the one tool h", len(blocks))
	}
}

// TestDecodeToolsInParallel: many tools, good and bad, some reading files,
// load the same decoded on several goroutines (run with -race).
func TestDecodeToolsInParallel(t *testing.T) {
	var b strings.Builder
	b.WriteString("policy \"ro\" {\n  builtin = \"fs_read\"\n  allowed_paths = [\".\"]\n}\n\n")
	for i := range 48 {
		fmt.Fprintf(&b, "tool \"t%03d\" {\n  description = file(\"d.txt\")\n", i)
		switch i % 4 {
		case 0:
			b.WriteString("  policy = policy.ro\n")
		case 1:
			b.WriteString("  rest {\n    method = \"GET\"\n    url = \"https://x/{id}\"\n  }\n  input_schema = { type = \"object\", properties = { id = { type = \"string\" } } }\n")
		case 2:
			b.WriteString("  policy = policy.ro\n  timeout = \"soon\"\n")
		case 3:
			b.WriteString("  rest {\n    method = \"FETCH\"\n    url = \"https://x/{missing}\"\n  }\n")
		}
		b.WriteString("}\n\n")
	}
	files := map[string][]byte{"spec.hcl": []byte(b.String()), "d.txt": []byte("A tool.")}
	loadBoth(t, func() (any, map[string]*hcl.File, hcl.Diagnostics) { return LoadFiles("d", files) })
}
