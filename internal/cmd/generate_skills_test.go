package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateCheckSeesSkillChange: a skill's files are part of the
// generated code, so editing one (the spec untouched) makes --check fail
// with the changed line and the new digest in the diff.
func TestGenerateCheckSeesSkillChange(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "skills")
	copyDir(t, filepath.Join(repoRoot, "testdata/specs/valid/skills"), spec)
	out := filepath.Join(t.TempDir(), "gen")
	if code, _, stderr := runCLI(t, "generate", "-o", out, spec); code != exitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "skills_gen.go")); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := runCLI(t, "generate", "--check", "-o", out, spec); code != exitOK || stdout != "" {
		t.Fatalf("check after generate: exit %d\n%s", code, stdout)
	}
	md := filepath.Join(spec, "skills", "commit-message", "SKILL.md")
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, append(b, "Never mention the ticket number.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, "generate", "--check", "-o", out, spec)
	if code != exitDiags {
		t.Fatalf("check after a skill edit: exit %d\n%s", code, stdout)
	}
	for _, want := range []string{"skills_gen.go", `+	"Never mention the ticket number.\n"`, "+		Digest:   \"sha256:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the diff lacks %q:\n%s", want, stdout)
		}
	}
}
