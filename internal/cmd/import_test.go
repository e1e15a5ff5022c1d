package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportWritesValidSpec: `toolgen import -o DIR FILE` on each host's
// format writes DIR/toolgen.hcl, `toolgen validate DIR` takes it without a
// single diagnostic (a literal secret would be a warning), and no
// credential of the host file (each is marked FAKE in the fixtures)
// reaches the spec, stdout or stderr.
func TestImportWritesValidSpec(t *testing.T) {
	for _, c := range []struct{ host, file string }{
		{"claude", "claude_desktop_config.json"},
		{"claude-code", ".mcp.json"},
		{"vscode", ".vscode/mcp.json"},
		{"cursor", ".cursor/mcp.json"},
	} {
		t.Run(c.host, func(t *testing.T) {
			src, err := filepath.Abs(filepath.Join(repoRoot, hostFixture(c.host, c.file)))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if c.host != "vscode" && !strings.Contains(string(raw), "FAKE") {
				t.Fatal("the fixture has no credential to check")
			}
			dir := filepath.Join(t.TempDir(), "spec")
			var stdout, stderr bytes.Buffer
			if code := run([]string{"import", "-o", dir, src}, &stdout, &stderr); code != exitOK {
				t.Fatalf("import: exit %d\n%s", code, stderr.String())
			}
			spec, err := os.ReadFile(filepath.Join(dir, "toolgen.hcl"))
			if err != nil {
				t.Fatal(err)
			}
			for name, out := range map[string]string{"spec": string(spec), "stdout": stdout.String(), "stderr": stderr.String()} {
				if strings.Contains(out, "FAKE") {
					t.Errorf("a credential reached the %s:\n%s", name, out)
				}
			}
			if !strings.Contains(string(spec), "agent \"assistant\"") {
				t.Errorf("no agent in the spec:\n%s", spec)
			}
			stdout.Reset()
			stderr.Reset()
			code := run([]string{"validate", "--format=json", dir}, &stdout, &stderr)
			if code != exitOK || strings.TrimSpace(stdout.String()) != "[]" {
				t.Errorf("validate: exit %d, diagnostics %s%s\nspec:\n%s", code, stdout.String(), stderr.String(), spec)
			}
		})
	}
}

// TestImportWritesNothingOnError: a file that is no host configuration
// leaves no spec directory behind.
func TestImportWritesNothingOnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spec")
	bad := filepath.Join(t.TempDir(), "x.json")
	writeTestFile(t, bad, `{"servers": [1]}`)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"import", "-o", dir, bad}, &stdout, &stderr); code != exitDiags {
		t.Fatalf("exit %d, want %d\n%s", code, exitDiags, stderr.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failed import (%v)", dir, err)
	}
}
