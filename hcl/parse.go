package hcl

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// pieceSize is about the size of the pieces a big file is parsed in: big
// enough that a piece is worth a goroutine, small enough that the lexer's
// token list (some 30 bytes of tokens per byte of source) of one piece
// stays small. A file of less than two pieces is parsed in one go. Tests
// change it.
var pieceSize = 256 << 10

// parseHCL parses a native-syntax file into parser, as parser.ParseHCL
// does, but a big file in pieces on several cores: lexing a 10,000-tool
// spec is most of its load time, and its tokens, garbage after parsing,
// most of its memory.
//
// A piece starts at a line that starts a top-level block: a line beginning
// with a letter after a line that is just "}" and any blank lines. That
// guess can be wrong (inside a heredoc, say), but then the piece before it
// does not parse on its own. So the pieces are used only when every one
// parses without a diagnostic and no top-level argument is set twice;
// otherwise the file is parsed again in one go, and its diagnostics are
// exactly those of parser.ParseHCL.
func parseHCL(parser *hclparse.Parser, src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	return parsePieces(parser, src, filename, pieceStarts(src, pieceSize))
}

// parsePieces is parseHCL with the pieces starting at the given offsets.
func parsePieces(parser *hclparse.Parser, src []byte, filename string, starts []int) (*hcl.File, hcl.Diagnostics) {
	if len(starts) < 2 {
		return parser.ParseHCL(src, filename)
	}
	files := make([]*hcl.File, len(starts))
	clean := make([]bool, len(starts))
	lines := make([]int, len(starts)) // the line each piece starts on
	lines[0] = 1
	for i := 1; i < len(starts); i++ {
		lines[i] = lines[i-1] + bytes.Count(src[starts[i-1]:starts[i]], []byte{'\n'})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(starts)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(starts) {
					return
				}
				start, end := starts[i], len(src)
				if i+1 < len(starts) {
					end = starts[i+1]
				}
				pos := hcl.Pos{Line: lines[i], Column: 1, Byte: start}
				f, diags := hclsyntax.ParseConfig(src[start:end:end], filename, pos)
				files[i], clean[i] = f, len(diags) == 0
			}
		})
	}
	wg.Wait()
	if f := joinPieces(files, clean, src); f != nil {
		parser.AddFile(filename, f)
		return f, nil
	}
	return parser.ParseHCL(src, filename)
}

// pieceStarts returns the offsets at which to cut src into pieces of about
// size bytes, starting with 0; just 0 when src is less than two pieces.
func pieceStarts(src []byte, size int) []int {
	starts := []int{0}
	if len(src) < 2*size {
		return starts
	}
	for {
		cut := nextBlockStart(src, starts[len(starts)-1]+size)
		if cut < 0 || len(src)-cut < size/2 {
			return starts
		}
		starts = append(starts, cut)
	}
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
