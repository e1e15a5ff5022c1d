package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Diagnostic formats accepted by --format.
var diagFormats = []string{"text", "short", "json"}

// writeDiags renders diagnostics in one of diagFormats:
//
//	text   HCL's snippet format: the source lines with the range marked
//	short  FILE:LINE:COL: error: SUMMARY: DETAIL, one per line
//	json   an array of {severity, summary, detail, range}
//
// File names are shown relative to the working directory. files maps the
// names in ranges to parsed files, for snippets.
func writeDiags(w io.Writer, format string, diags hcl.Diagnostics, files map[string]*hcl.File) error {
	relPath := relativeTo(workingDir())
	switch format {
	case "", "text":
		return newSnippetWriter(w, relFiles(files, relPath), 100).WriteDiagnostics(relDiags(diags, relPath))
	case "short":
		var b strings.Builder
		for _, d := range diags {
			if d.Subject != nil {
				fmt.Fprintf(&b, "%s:%d:%d: ", relPath(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
			}
			fmt.Fprintf(&b, "%s: %s", severity(d.Severity), d.Summary)
			if d.Detail != "" {
				fmt.Fprintf(&b, ": %s", strings.Join(strings.Fields(d.Detail), " "))
			}
			b.WriteByte('\n')
		}
		_, err := io.WriteString(w, b.String())
		return err
	case "json":
		out := make([]jsonDiag, 0, len(diags))
		for _, d := range diags {
			jd := jsonDiag{Severity: severity(d.Severity), Summary: d.Summary, Detail: d.Detail}
			if d.Subject != nil {
				jd.Range = &jsonRange{
					Filename: relPath(d.Subject.Filename),
					Start:    jsonPos{d.Subject.Start.Line, d.Subject.Start.Column, d.Subject.Start.Byte},
					End:      jsonPos{d.Subject.End.Line, d.Subject.End.Column, d.Subject.End.Byte},
				}
			}
			out = append(out, jd)
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	return fmt.Errorf("unknown diagnostics format %q (want text, short or json)", format)
}

type jsonDiag struct {
	Severity string     `json:"severity"`
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Range    *jsonRange `json:"range,omitempty"`
}

type jsonRange struct {
	Filename string  `json:"filename"`
	Start    jsonPos `json:"start"`
	End      jsonPos `json:"end"`
}

type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

func severity(s hcl.DiagnosticSeverity) string {
	if s == hcl.DiagWarning {
		return "warning"
	}
	return "error"
}

func workingDir() string {
	wd, _ := os.Getwd()
	return wd
}

// relativeTo shows an absolute file name relative to the working
// directory wd (asked once per rendering, not once per diagnostic); names
// that are already relative are left as they are.
func relativeTo(wd string) func(string) string {
	return func(name string) string {
		if !filepath.IsAbs(name) || wd == "" {
			return name
		}
		if rel, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
		return name
	}
}

// relFiles and relDiags rename files the same way for the snippet writer,
// which finds a diagnostic's source by its range's file name.
func relFiles(files map[string]*hcl.File, relPath func(string) string) map[string]*hcl.File {
	out := make(map[string]*hcl.File, len(files))
	for name, f := range files {
		out[relPath(name)] = f
	}
	return out
}

func relDiags(diags hcl.Diagnostics, relPath func(string) string) hcl.Diagnostics {
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		if c.Subject != nil {
			r := *c.Subject
			r.Filename = relPath(r.Filename)
			c.Subject = &r
		}
		if c.Context != nil {
			r := *c.Context
			r.Filename = relPath(r.Filename)
			c.Context = &r
		}
		out[i] = &c
	}
	return out
}

// diagsExit is the exit code for a set of diagnostics: warnings alone pass.
func diagsExit(diags hcl.Diagnostics) int {
	if diags.HasErrors() {
		return exitDiags
	}
	return exitOK
}
