package hcl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileSymlinkEscape: file() must not follow a symlink out of the spec
// directory (os.DirFS did), while a symlink that stays inside still works.
func TestFileSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "outside.txt")
	if err := os.WriteFile(secret, []byte("SECRET-OUTSIDE"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "inside.md"), []byte("inside text"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link.txt": secret, "ok.md": "inside.md"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	src := "tool \"a\" {\n  description = file(\"link.txt\")\n  go          = \"example.com/t.A\"\n}\n" +
		"tool \"b\" {\n  description = file(\"ok.md\")\n  go          = \"example.com/t.B\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}

	_, files, diags := LoadDir(dir)
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1:\n%s", len(diags), renderDiags(files, diags))
	}
	d := diags[0]
	if d.Summary != "Invalid function argument" || !strings.Contains(d.Detail, "outside the spec directory") {
		t.Errorf("diagnostic = %q: %q, want an outside-the-spec-directory error", d.Summary, d.Detail)
	}
	if strings.Contains(d.Detail, "SECRET-OUTSIDE") {
		t.Errorf("diagnostic leaks the outside file: %q", d.Detail)
	}
	if d.Subject == nil || d.Subject.Start.Line != 2 || d.Subject.Start.Column != 23 {
		t.Errorf("diagnostic range = %v, want main.hcl:2:23 (the file() argument)", d.Subject)
	}
}

// TestSpecFileSymlinkEscape: a spec file that is a symlink out of the
// directory was reported without a position. The diagnostic now names the
// file, at 1:1, and says why it was not read; a symlink that stays inside
// is read as usual.
func TestSpecFileSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "other.hcl"), []byte("tool \"secret\" {\n  go = \"x.Y\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real.hcl"), []byte(minimalTool), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("tool \"b\" {\n  go = \"x.B\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"escape.hcl": filepath.Join(outside, "other.hcl"), "b.hcl": "b.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	_, _, diags := LoadDir(dir)
	oneDiag(t, diags, "Cannot read spec file", "escape.hcl is a symlink that leads out of the spec directory", "escape.hcl", 1, 1)
	if d := diags[0]; d.Subject.Filename != filepath.Join(dir, "escape.hcl") || strings.Contains(d.Detail, "secret") {
		t.Errorf("diagnostic %q at %v", d.Detail, d.Subject)
	}
}
