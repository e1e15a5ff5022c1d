package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Go tools are checked against the package the code is written to (-o), not
// the spec directory: generating into a tool's own package is an error.
func TestGenerateChecksGoToolsAgainstOutDir(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"generate", "--check", "-o", "../../examples/full/tools", "../../examples/full/spec"}, &stdout, &stderr)
	if code != exitDiags || !strings.Contains(stderr.String(), "Go tool in the generated package") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

// TestGenerateDefaultPackageFollowsOutDir: a spec without toolgen.package
// generated with -o into a directory with gen.go (package mytools) joins
// that package, as the natural `//go:generate ... generate -o . ./spec`
// needs; into a directory without Go files it takes the directory's name.
// It used to take the spec directory's name: "found packages mytools and
// spec".
func TestGenerateDefaultPackageFollowsOutDir(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "spec", "toolgen.hcl"), "agent \"a\" {}\n")
	writeTestFile(t, filepath.Join(dir, "gen.go"), "package mytools\n\n//go:generate toolgen generate -o . ./spec\n")
	for out, want := range map[string]string{dir: "mytools", filepath.Join(dir, "out"): "out", filepath.Join(dir, "spec"): "spec"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"generate", "-o", out, filepath.Join(dir, "spec")}, &stdout, &stderr); code != exitOK {
			t.Fatalf("generate -o %s: exit %d\n%s", out, code, stderr.String())
		}
		src, err := os.ReadFile(filepath.Join(out, "registry_gen.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "\npackage "+want+"\n") {
			t.Errorf("-o %s: registry_gen.go is not package %s:\n%.300s", out, want, src)
		}
	}
}
