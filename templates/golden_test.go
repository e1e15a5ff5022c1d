package templates

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"golang.org/x/tools/txtar"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

var update = flag.Bool("update", false, "rewrite the golden files in ../testdata/gen and testdata/bench")

// A golden case is ../testdata/gen/NAME.txtar: the spec under spec/, then the
// expected generated files by name, or an "errors" file listing the
// expected diagnostics as "SUMMARY: DETAIL" lines.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("../testdata/gen/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	built := map[string]map[string][]byte{} // package dir → files, compiled below
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			specFiles := map[string][]byte{}
			want := map[string][]byte{}
			for _, f := range ar.Files {
				if rest, ok := strings.CutPrefix(f.Name, "spec/"); ok {
					specFiles[rest] = f.Data
				} else {
					want[f.Name] = f.Data
				}
			}
			got := map[string][]byte{}
			spec, _, diags := spechcl.LoadFiles(filepath.Join("..", "testdata", "gen", name), specFiles)
			if !diags.HasErrors() {
				var gen map[string][]byte
				var d hcl.Diagnostics
				gen, d = Generate(spec)
				diags = append(diags, d...)
				for k, v := range gen {
					got[k] = v
				}
			}
			if len(diags) > 0 {
				got["errors"] = []byte(diagLines(diags))
			}
			if *update {
				writeGolden(t, path, ar, got)
				return
			}
			if diff := cmp.Diff(names(want), names(got)); diff != "" {
				t.Fatalf("generated files differ (-want +got):\n%s", diff)
			}
			for k := range want {
				if diff := cmp.Diff(string(want[k]), string(got[k])); diff != "" {
					t.Errorf("%s differs (-want +got):\n%s", k, diff)
				}
			}
			if _, ok := got["errors"]; !ok || len(got) > 1 {
				delete(got, "errors")
				built[name] = got
			}
		})
	}
	if *update || t.Failed() {
		return
	}
	t.Run("compile", func(t *testing.T) { vetPackages(t, built) })
	t.Run("version-guard", func(t *testing.T) { versionGuard(t, built["small"]) })
}

func names(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func diagLines(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		pos := ""
		if d.Subject != nil {
			pos = fmt.Sprintf("%s:%d,%d: ", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
		}
		fmt.Fprintf(&b, "%s%s: %s: %s\n", pos, sev, d.Summary, d.Detail)
	}
	return b.String()
}

func writeGolden(t *testing.T, path string, ar *txtar.Archive, got map[string][]byte) {
	var files []txtar.File
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "spec/") {
			files = append(files, f)
		}
	}
	for _, k := range names(got) {
		files = append(files, txtar.File{Name: k, Data: got[k]})
	}
	ar.Files = files
	if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// vetPackages compiles and vets generated packages: each is written to a
// temporary directory under testdata (which ./... patterns skip) and
// checked with one `go vet`, which type-checks like a build and then runs
// the analyzers. Keys of pkgs are package names.
func vetPackages(t *testing.T, pkgs map[string]map[string][]byte) {
	t.Helper()
	if len(pkgs) == 0 {
		return
	}
	root, err := os.MkdirTemp("testdata", "_build")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	var args []string
	for _, pkg := range names2(pkgs) {
		dir := filepath.Join(root, pkg)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range pkgs[pkg] {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args = append(args, "./"+filepath.ToSlash(dir))
	}
	cmd := exec.Command("go", append([]string{"vet"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("go vet of generated packages failed: %v\n%s", err, out.String())
	}
}

func names2(m map[string]map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// versionGuard builds the small golden as if generated for a newer runtime
// (GenVersion above decl.MaxVersion) and expects the build to fail at
// the guard.
func versionGuard(t *testing.T, files map[string][]byte) {
	if files == nil {
		t.Fatal("no small golden")
	}
	drift := map[string][]byte{}
	for name, b := range files {
		drift[name] = b
	}
	reg := string(drift[RegistryFile])
	cur := fmt.Sprintf("const GenVersion = %d\n", decl.GenVersion)
	if !strings.Contains(reg, cur) {
		t.Fatalf("no %q in the registry", cur)
	}
	drift[RegistryFile] = []byte(strings.Replace(reg, cur, "const GenVersion = 1000\n", 1))
	root, err := os.MkdirTemp("testdata", "_build")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	for name, b := range drift {
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("go", "build", "./"+filepath.ToSlash(root)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "overflows") {
		t.Fatalf("build with a drifted GenVersion: err %v\n%s", err, out)
	}
}
