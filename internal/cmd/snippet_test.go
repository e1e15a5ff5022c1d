package cmd

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// hclText renders diagnostics with HCL's own snippet writer.
func hclText(files map[string]*hcl.File, diags hcl.Diagnostics) string {
	var b bytes.Buffer
	hcl.NewDiagnosticTextWriter(&b, files, 100, false).WriteDiagnostics(diags)
	return b.String()
}

// ourText renders diagnostics with the snippet writer, undoing its two
// additions to HCL's format for comparison: the column in "on FILE:L:C"
// and the line of ^ under the subject.
func ourText(files map[string]*hcl.File, diags hcl.Diagnostics) string {
	var b bytes.Buffer
	newSnippetWriter(&b, files, 100).WriteDiagnostics(diags)
	s := underlineLine.ReplaceAllString(b.String(), "")
	return onPosition.ReplaceAllString(s, "  on $1 line $2")
}

var (
	underlineLine = regexp.MustCompile(`(?m)^      [ \t]*\^+\n`)
	onPosition    = regexp.MustCompile(`(?m)^  on (.+?):(\d+):\d+`)
)

// TestSnippetWriterMatchesHCL: the snippet writer prints what HCL's writer
// prints, with the column and the underline added, for every fixture's
// diagnostics.
func TestSnippetWriterMatchesHCL(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(repoRoot, "testdata/specs/*/*"))
	for _, dir := range dirs {
		_, files, diags := spechcl.LoadDir(dir)
		if diff := cmp.Diff(hclText(files, diags), ourText(files, diags)); diff != "" {
			t.Errorf("%s (-hcl +ours):\n%s", dir, diff)
		}
	}
}

// TestSnippetWriterEdgeCases compares the two writers on ranges and files
// the fixtures do not have: CRLF and lone CR line ends, empty ranges at the
// end of a file, ranges over several lines with blank lines between,
// contexts wider than the subject, JSON files, missing sources.
func TestSnippetWriterEdgeCases(t *testing.T) {
	srcs := map[string]string{
		"crlf.hcl":  "tool \"a\" {\r\n  policy = policy.x\r\n}\r\n\r\ntool \"b\" {\r\n  x = 1\r\n}",
		"cr.hcl":    "a = 1\rb = 2\n\n\nc {\n  d = \"x\"\n\n  e = 3\n}\n",
		"blank.hcl": "\n\n\ntool \"a\" {\n\n\n  go = 1\n}\n",
		"spec.hcl.json": `{
  "tool": {
    "a": {"go": 1},
    "b": {"policy": "policy.x"}
  }
}`,
		"unicode.hcl": "tool \"é\" {\n  description = \"naïve 🎉 text\"\n}\n",
	}
	files := map[string]*hcl.File{}
	for name, src := range srcs {
		_, f, _ := spechcl.LoadFiles(".", map[string][]byte{name: []byte(src)})
		for k, v := range f {
			files[k] = v
		}
		if files[name] == nil {
			files[name] = &hcl.File{Bytes: []byte(src)}
		}
	}
	rng := func(file string, sl, sc, sb, el, ec, eb int) *hcl.Range {
		return &hcl.Range{Filename: file, Start: hcl.Pos{Line: sl, Column: sc, Byte: sb}, End: hcl.Pos{Line: el, Column: ec, Byte: eb}}
	}
	var diags hcl.Diagnostics
	add := func(subject, context *hcl.Range) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "S", Detail: strings.Repeat("Detail words wrap. ", 12), Subject: subject, Context: context})
	}
	for name, src := range srcs {
		n := len(src)
		lines := strings.Count(src, "\n") + 1
		add(rng(name, 1, 1, 0, 1, 1, 0), nil)                                                    // empty, at the start
		add(rng(name, lines, 1, n, lines, 1, n), nil)                                            // empty, at the end
		add(rng(name, 1, 1, 0, lines, 1, n), nil)                                                // the whole file
		add(rng(name, 2, 3, min(12, n), 2, 5, min(14, n)), rng(name, 1, 1, 0, 3, 2, min(30, n))) // context around
		for off := 0; off < n; off += 7 {
			add(rng(name, 1, 1, off, 1, 1, min(off+3, n)), nil)
		}
	}
	add(rng("missing.hcl", 3, 1, 10, 3, 4, 13), nil)
	diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "No range", Detail: "Only words."})
	diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No detail", Subject: rng("blank.hcl", 4, 1, 3, 4, 5, 7)})
	if out := ourText(files, diags); strings.Count(out, "\n   ") < len(diags) || !strings.Contains(out, `in tool "b"`) {
		t.Fatalf("too few snippet lines: the test renders nothing worth comparing:\n%s", out)
	}
	if diff := cmp.Diff(hclText(files, diags), ourText(files, diags)); diff != "" {
		t.Errorf("(-hcl +ours):\n%s", diff)
	}
}

// TestSnippetLongLine: a line longer than maxSnippetLine is shown as a
// window around the range, not whole.
func TestSnippetLongLine(t *testing.T) {
	src := "a = " + strings.Repeat("é", 3000) + "X" + strings.Repeat("b", 3000) + "\n"
	at := strings.Index(src, "X")
	files := map[string]*hcl.File{"long.hcl": {Bytes: []byte(src)}}
	subject := &hcl.Range{Filename: "long.hcl", Start: hcl.Pos{Line: 1, Column: 3005, Byte: at}, End: hcl.Pos{Line: 1, Column: 3006, Byte: at + 1}}
	out := ourText(files, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Subject: subject}})
	line := strings.Split(out, "\n")[3]
	if !strings.HasPrefix(line, "   1: …é") || !strings.HasSuffix(line, "b…") || !strings.Contains(line, "éXb") || len(line) > maxSnippetLine+20 {
		t.Errorf("long line shown as %q (%d bytes)", line, len(line))
	}
}

// TestSnippetWriterLinear: rendering n diagnostics of a file that grows
// with n must cost about n, not n times the file. HCL's writer scans the
// whole file for each diagnostic: four times the errors cost it sixteen
// times the allocations. Counted in allocations, not time, so the test
// does not depend on the machine.
func TestSnippetWriterLinear(t *testing.T) {
	allocs := func(n int) float64 {
		_, files, diags := spechcl.LoadDir(errorSpec(t, n))
		return testing.AllocsPerRun(3, func() { writeDiags(nopWriter{}, "text", diags, files) })
	}
	small, big := allocs(50), allocs(200)
	if ratio := big / small; ratio > 6 {
		t.Errorf("4x the diagnostics cost %.1fx the allocations (%.0f → %.0f); rendering is not linear", ratio, small, big)
	}
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestSnippetUnderline: the position is FILE:LINE:COL and the subject is
// underlined character by character, tabs kept, on its first line.
func TestSnippetUnderline(t *testing.T) {
	src := "tool \"é\" {\n\tdescription = \"naïve\"\n  policy = policy.x\n}\n"
	_, files, _ := spechcl.LoadFiles(".", map[string][]byte{"a.hcl": []byte(src)})
	at := func(line, col, byteOff, endCol, endByte int) *hcl.Range {
		return &hcl.Range{Filename: "a.hcl", Start: hcl.Pos{Line: line, Column: col, Byte: byteOff}, End: hcl.Pos{Line: line, Column: endCol, Byte: endByte}}
	}
	for _, tc := range []struct {
		subject *hcl.Range
		want    string
	}{
		{at(1, 6, 5, 9, 9), "  on a.hcl:1:6, in tool \"é\":\n   1: tool \"é\" {\n           ^^^\n"},
		{at(2, 16, 27, 23, 35), "  on a.hcl:2:16, in tool \"é\":\n   2: \tdescription = \"naïve\"\n      \t              ^^^^^^^\n"},
		{at(3, 3, 38, 3, 38), "  on a.hcl:3:3, in tool \"é\":\n   3:   policy = policy.x\n        ^\n"},
	} {
		var b bytes.Buffer
		newSnippetWriter(&b, files, 100).WriteDiagnostics(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Subject: tc.subject}})
		if got := b.String(); !strings.Contains(got, tc.want) {
			t.Errorf("got\n%s\nwant it to hold\n%s", got, tc.want)
		}
	}
}
