package cmd

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mitchellh/go-wordwrap"
)

// snippetWriter renders diagnostics with source snippets, exactly as
// hcl.NewDiagnosticTextWriter does (without color), but it indexes each
// file's lines and blocks once. HCL's writer scans the whole file, a
// grapheme at a time, for every diagnostic: 2,000 errors in a 250 KB spec
// took minutes. Here each diagnostic costs a binary search and its own
// lines.
type snippetWriter struct {
	w       io.Writer
	files   map[string]*hcl.File
	width   uint
	indexes map[string]*fileIndex
}

func newSnippetWriter(w io.Writer, files map[string]*hcl.File, width uint) *snippetWriter {
	return &snippetWriter{w: w, files: files, width: width, indexes: map[string]*fileIndex{}}
}

// fileIndex is a file's lines as HCL's RangeScanner splits and numbers
// them, and its top-level blocks for the "in tool "x"" context.
type fileIndex struct {
	starts, ends []int // each line's text, without its line break
	lines        []int // each line's number
	blocks       []*hclsyntax.Block
	sorted       bool // blocks are in source order without overlaps
}

func (sw *snippetWriter) index(name string, f *hcl.File) *fileIndex {
	if ix := sw.indexes[name]; ix != nil {
		return ix
	}
	ix := &fileIndex{}
	src := f.Bytes
	for pos, line := 0, 1; pos < len(src); {
		end, next := len(src), len(src)
		if j := bytes.IndexByte(src[pos:], '\n'); j >= 0 {
			end, next = pos+j, pos+j+1
		}
		text := end
		if text > pos && src[text-1] == '\r' {
			text-- // bufio.ScanLines drops it
		}
		ix.starts, ix.ends, ix.lines = append(ix.starts, pos), append(ix.ends, text), append(ix.lines, line)
		// The scanner counts a line for every \n and every \r that does
		// not start a \r\n.
		for i := pos; i < next; i++ {
			if src[i] == '\n' || src[i] == '\r' && (i+1 >= len(src) || src[i+1] != '\n') {
				line++
			}
		}
		pos = next
	}
	if body, ok := f.Body.(*hclsyntax.Body); ok {
		ix.blocks, ix.sorted = body.Blocks, true
		for i := 1; i < len(body.Blocks); i++ {
			if body.Blocks[i-1].Range().End.Byte > body.Blocks[i].Range().Start.Byte {
				ix.sorted = false
			}
		}
	}
	sw.indexes[name] = ix
	return ix
}

// context names the top-level block holding offset, as HCL's navigation
// does: `tool "read_file"`.
func (ix *fileIndex) context(f *hcl.File, offset int) string {
	if !ix.sorted {
		if nav, ok := f.Nav.(interface{ ContextString(int) string }); ok {
			return nav.ContextString(offset)
		}
		return ""
	}
	i := sort.Search(len(ix.blocks), func(i int) bool { return ix.blocks[i].Range().End.Byte > offset })
	if i == len(ix.blocks) || !ix.blocks[i].Range().ContainsOffset(offset) {
		return ""
	}
	b := ix.blocks[i]
	s := b.Type
	for _, l := range b.Labels {
		s += fmt.Sprintf(" %q", l)
	}
	return s
}

func (sw *snippetWriter) WriteDiagnostics(diags hcl.Diagnostics) error {
	for _, d := range diags {
		if err := sw.write(d); err != nil {
			return err
		}
	}
	return nil
}

func (sw *snippetWriter) write(d *hcl.Diagnostic) error {
	if d.Expression != nil && d.EvalContext != nil && d.EvalContext.Variables != nil {
		// HCL adds the values of the expression's variables; the spec's
		// evaluation contexts have none, so this never happens, but if it
		// does the output stays HCL's.
		return hcl.NewDiagnosticTextWriter(sw.w, sw.files, sw.width, false).WriteDiagnostic(d)
	}
	severity := "???????"
	switch d.Severity {
	case hcl.DiagError:
		severity = "Error"
	case hcl.DiagWarning:
		severity = "Warning"
	}
	buf := fmt.Appendf(nil, "%s: %s\n\n", severity, d.Summary)
	if d.Subject != nil {
		buf = sw.snippet(buf, d)
	}
	if d.Detail != "" {
		detail := d.Detail
		if sw.width != 0 {
			detail = wordwrap.WrapString(detail, sw.width)
		}
		buf = fmt.Appendf(buf, "%s\n\n", detail)
	}
	if _, err := sw.w.Write(buf); err != nil {
		return fmt.Errorf("write failed: %w", err)
	}
	return nil
}

// maxSnippetLine is the longest source line shown whole; of a longer one
// (minified JSON, a file nested too deep) a window around the range is
// shown, so output stays proportional to the diagnostics, not the file.
const maxSnippetLine = 1000

func (sw *snippetWriter) snippet(buf []byte, d *hcl.Diagnostic) []byte {
	subject := *d.Subject
	snip, highlight := subject, subject
	if d.Context != nil {
		snip = hcl.RangeOver(snip, *d.Context)
	}
	// An empty range cannot be shown; widen it to one character.
	for _, r := range []*hcl.Range{&snip, &highlight} {
		if r.Empty() {
			r.End.Byte++
			r.End.Column++
		}
	}
	f := sw.files[subject.Filename]
	if f == nil || f.Bytes == nil {
		return fmt.Appendf(buf, "  on %s:%d:%d:\n  (source code not available)\n\n", subject.Filename, subject.Start.Line, subject.Start.Column)
	}
	ix := sw.index(subject.Filename, f)
	in := ix.context(f, subject.Start.Byte)
	if in != "" {
		in = ", in " + in
	}
	buf = fmt.Appendf(buf, "  on %s:%d:%d%s:\n", subject.Filename, subject.Start.Line, subject.Start.Column, in)
	src := f.Bytes
	first := sort.SearchInts(ix.ends, snip.Start.Byte)
	for i := first; i < len(ix.starts) && ix.starts[i] <= snip.End.Byte; i++ {
		line := hcl.Range{
			Filename: subject.Filename,
			Start:    hcl.Pos{Line: ix.lines[i], Column: 1, Byte: ix.starts[i]},
			End:      hcl.Pos{Byte: ix.ends[i]},
		}
		if !line.Overlaps(snip) {
			continue
		}
		text, shown := src[ix.starts[i]:ix.ends[i]], ix.starts[i]
		lead := 0 // bytes of "…" before the shown source
		if len(text) > maxSnippetLine {
			text, shown = lineWindow(src, line, highlight)
			if shown > ix.starts[i] {
				lead = len("…")
			}
		}
		buf = fmt.Appendf(buf, "%4d: %s\n", ix.lines[i], text)
		// Underline the highlight on its first line (to the line's end
		// when it goes on).
		if highlight.Start.Byte >= ix.starts[i] && highlight.Start.Byte <= ix.ends[i] {
			from, to := highlight.Start.Byte-shown+lead, min(highlight.End.Byte, ix.ends[i])-shown+lead
			buf = underline(buf, text, max(from, lead), min(max(to, from), len(text)))
		}
	}
	return append(buf, '\n')
}

// underline writes a line of ^ under text[from:to], one a character and at
// least one, indented like the source line: tabs stay tabs, so the marks
// line up in a terminal and an editor alike.
func underline(buf, text []byte, from, to int) []byte {
	buf = append(buf, "      "...)
	for _, r := range string(text[:max(from, 0)]) {
		if r == '\t' {
			buf = append(buf, '\t')
		} else {
			buf = append(buf, ' ')
		}
	}
	n := max(utf8.RuneCount(text[max(from, 0):max(to, from, 0)]), 1)
	buf = append(buf, strings.Repeat("^", n)...)
	return append(buf, '\n')
}

// lineWindow is the part of a long line around where the highlight meets
// it, cut at characters and marked with "…" where text is left out, and
// the offset in src of the first byte shown.
func lineWindow(src []byte, line, highlight hcl.Range) ([]byte, int) {
	at := line.Start.Byte
	if _, over, _ := line.PartitionAround(highlight); !over.Empty() {
		at = over.Start.Byte
	}
	start, end := max(line.Start.Byte, at-200), min(line.End.Byte, at+maxSnippetLine-200)
	for start > line.Start.Byte && !utf8.RuneStart(src[start]) {
		start--
	}
	for end < line.End.Byte && !utf8.RuneStart(src[end]) {
		end++
	}
	var out []byte
	if start > line.Start.Byte {
		out = append(out, "…"...)
	}
	out = append(out, src[start:end]...)
	if end < line.End.Byte {
		out = append(out, "…"...)
	}
	return out, start
}
