package hcl

import (
	"bytes"
	"runtime"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// minPieceSize is the smallest part of a file worth parsing on its own
// goroutine: below it, a file is parsed in one go. maxPieces caps the
// pieces of a file (0: GOMAXPROCS). Tests change both.
var (
	minPieceSize = 256 << 10
	maxPieces    = 0
)

// parseHCL parses a native-syntax file into parser, as parser.ParseHCL
// does, but a big file in pieces on several cores: lexing a 10,000-tool
// spec is most of its load time.
//
// A piece starts at a line that starts a top-level block: a line beginning
// with a letter after a line that is just "}" and any blank lines. That guess can be
// wrong (inside a heredoc, say), but then the piece before it does not
// parse on its own. So the pieces are used only when every one parses
// without a diagnostic and no top-level argument is set twice; otherwise
// the file is parsed again in one go, and its diagnostics are exactly
// those of parser.ParseHCL.
func parseHCL(parser *hclparse.Parser, src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	n := maxPieces
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return parsePieces(parser, src, filename, pieceStarts(src, n))
}

// parsePieces is parseHCL with the pieces starting at the given offsets.
func parsePieces(parser *hclparse.Parser, src []byte, filename string, starts []int) (*hcl.File, hcl.Diagnostics) {
	if len(starts) < 2 {
		return parser.ParseHCL(src, filename)
	}
	files := make([]*hcl.File, len(starts))
	clean := make([]bool, len(starts))
	var wg sync.WaitGroup
	for i, start := range starts {
		end := len(src)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		pos := hcl.Pos{Line: 1 + bytes.Count(src[:start], []byte{'\n'}), Column: 1, Byte: start}
		wg.Go(func() {
			f, diags := hclsyntax.ParseConfig(src[start:end:end], filename, pos)
			files[i], clean[i] = f, len(diags) == 0
		})
	}
	wg.Wait()
	if f := joinPieces(files, clean, src); f != nil {
		parser.AddFile(filename, f)
		return f, nil
	}
	return parser.ParseHCL(src, filename)
}

// pieceStarts returns the offsets at which to cut src into at most n
// pieces of similar size, starting with 0; one offset when src is small.
func pieceStarts(src []byte, n int) []int {
	n = min(n, len(src)/minPieceSize)
	starts := []int{0}
	for k := 1; k < n; k++ {
		from := max(k*len(src)/n, starts[len(starts)-1]+1)
		cut := nextBlockStart(src, from)
		if cut < 0 {
			break
		}
		starts = append(starts, cut)
	}
	return starts
}

// nextBlockStart is the first offset at or after from that begins a line
// starting with a letter and following a line "}" and blank lines, or -1.
func nextBlockStart(src []byte, from int) int {
	for i := from; i < len(src); {
		j := bytes.Index(src[i:], []byte("\n}\n"))
		if j < 0 {
			return -1
		}
		at := i + j + 3
		for at < len(src) && src[at] == '\n' {
			at++
		}
		if at < len(src) && isLetter(src[at]) {
			return at
		}
		i = i + j + 1
	}
	return -1
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// joinPieces makes one file of the parsed pieces of src: the first piece's
// file, whose navigation (for diagnostics' context) points at its body,
// with the other pieces' items appended. It returns nil when a piece had
// a diagnostic or a top-level argument appears in two pieces.
func joinPieces(files []*hcl.File, clean []bool, src []byte) *hcl.File {
	bodies := make([]*hclsyntax.Body, len(files))
	for i, f := range files {
		if !clean[i] || f == nil {
			return nil
		}
		b, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			return nil
		}
		bodies[i] = b
	}
	root := bodies[0]
	if root.Attributes == nil {
		root.Attributes = hclsyntax.Attributes{}
	}
	for _, b := range bodies[1:] {
		for name, attr := range b.Attributes {
			if _, dup := root.Attributes[name]; dup {
				return nil
			}
			root.Attributes[name] = attr
		}
		root.Blocks = append(root.Blocks, b.Blocks...)
	}
	last := bodies[len(bodies)-1]
	root.SrcRange.End = last.SrcRange.End
	root.EndRange = last.EndRange
	f := files[0]
	f.Bytes = src
	return f
}
