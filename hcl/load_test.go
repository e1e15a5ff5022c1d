package hcl

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// markerRe finds expected diagnostics written on the line they belong to:
// `# ERROR: Duplicate tool` or `# WARNING: Literal secret`.
var markerRe = regexp.MustCompile(`(ERROR|WARNING): ([^#]+)`)

// wantDiags reads the markers of every *.hcl file (and skill SKILL.md) in dir as
// "FILE:LINE: SEVERITY: Summary" lines.
func wantDiags(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
	// A skill's SKILL.md marks its lines in YAML comments.
	skillFiles, _ := filepath.Glob(filepath.Join(dir, "skills", "*", "SKILL.md"))
	files = append(files, skillFiles...)
	var want []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			i := strings.Index(text, "#")
			if i < 0 {
				continue
			}
			for _, m := range markerRe.FindAllStringSubmatch(text[i:], -1) {
				want = append(want, fmt.Sprintf("%s:%d: %s: %s", filepath.Base(f), line, m[1], strings.TrimSpace(m[2])))
			}
		}
		fh.Close()
	}
	sort.Strings(want)
	return want
}

func gotDiags(diags hcl.Diagnostics) []string {
	var got []string
	for _, d := range diags {
		sev := "ERROR"
		if d.Severity == hcl.DiagWarning {
			sev = "WARNING"
		}
		file, line := "-", 0
		if d.Subject != nil {
			file, line = filepath.Base(d.Subject.Filename), d.Subject.Start.Line
		}
		got = append(got, fmt.Sprintf("%s:%d: %s: %s", file, line, sev, d.Summary))
	}
	sort.Strings(got)
	return got
}

// TestFixtures loads every fixture and compares its diagnostics with the
// markers in its files, exactly: nothing missing, nothing extra.
func TestFixtures(t *testing.T) {
	for _, kind := range []string{"valid", "invalid"} {
		dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "specs", kind, "*"))
		if len(dirs) == 0 {
			t.Fatalf("no %s fixtures", kind)
		}
		for _, dir := range dirs {
			t.Run(kind+"/"+filepath.Base(dir), func(t *testing.T) {
				spec, files, diags := LoadDir(dir)
				want, got := wantDiags(t, dir), gotDiags(diags)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("diagnostics (-want +got):\n%s\nall:\n%s", diff, renderDiags(files, diags))
				}
				if kind == "valid" && spec == nil {
					t.Fatalf("valid fixture did not load")
				}
				if kind == "invalid" && len(diags) == 0 {
					t.Fatalf("invalid fixture has no diagnostics")
				}
				for _, d := range diags {
					if d.Subject == nil {
						t.Errorf("diagnostic %q has no source range", d.Summary)
					}
				}
			})
		}
	}
}

func renderDiags(files map[string]*hcl.File, diags hcl.Diagnostics) string {
	var b strings.Builder
	w := hcl.NewDiagnosticTextWriter(&b, files, 100, false)
	w.WriteDiagnostics(diags)
	return b.String()
}

// TestTooManySyntaxErrors: a file of garbage yields a bounded number of
// diagnostics (rendering thousands took seconds; found by FuzzLoad).
func TestTooManySyntaxErrors(t *testing.T) {
	garbage := append([]byte(`{"":`), bytes.Repeat([]byte{0x11}, 5000)...)
	_, _, diags := LoadFiles("g", map[string][]byte{"g.hcl": garbage})
	if len(diags) != maxParseDiags+1 {
		t.Fatalf("got %d diagnostics, want %d", len(diags), maxParseDiags+1)
	}
	found := false
	for _, d := range diags {
		found = found || (d.Summary == "Too many syntax errors" && d.Subject != nil)
	}
	if !found {
		t.Errorf("no \"Too many syntax errors\" diagnostic in %v", diags)
	}
}
