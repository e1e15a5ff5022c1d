package hcl

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// loadSkillSpec loads a spec declaring skill "demo" whose SKILL.md is md,
// plus the extra files (path under the skill → content).
func loadSkillSpec(t *testing.T, md string, extra map[string]string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"spec.hcl":             "skill \"demo\" {}\nagent \"a\" {\n  description = \"d\"\n  tools { use = [skill.demo] }\n}\n",
		"skills/demo/SKILL.md": md,
	}
	for p, c := range extra {
		files["skills/demo/"+p] = c
	}
	for p, c := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, diags := Load(dir)
	var out []string
	for _, d := range diags {
		if d.Subject != nil {
			out = append(out, strings.TrimPrefix(d.Subject.Filename, dir+"/")+":"+strconv.Itoa(d.Subject.Start.Line)+": "+d.Summary)
		} else {
			out = append(out, d.Summary)
		}
	}
	return dir, out
}

func TestSkillFrontmatterRules(t *testing.T) {
	long := strings.Repeat("x", 1025)
	for _, c := range []struct {
		name, md, want string
	}{
		{"ok", "---\nname: demo\ndescription: Does the demo.\n---\nBody.\n", ""},
		{"crlf", "---\r\nname: demo\r\ndescription: Does the demo.\r\n---\r\nBody.\r\n", ""},
		{"no frontmatter", "# Demo\n", "skills/demo/SKILL.md:1: Missing frontmatter"},
		{"unclosed", "---\nname: demo\ndescription: x\n", "skills/demo/SKILL.md:1: Missing frontmatter"},
		{"bad yaml", "---\nname: demo\ndescription: [x\n---\n", "skills/demo/SKILL.md:"},
		{"not a mapping", "---\n- a\n---\n", "skills/demo/SKILL.md:2: Invalid frontmatter"},
		{"other name", "---\ndescription: x\nname: other\n---\n", "skills/demo/SKILL.md:3: Skill name differs from its directory"},
		{"bad name", "---\nname: Demo\ndescription: x\n---\n", "skills/demo/SKILL.md:2: Invalid skill name"},
		{"no description", "---\nname: demo\n---\n", "skills/demo/SKILL.md:2: Missing frontmatter field"},
		{"empty description", "---\nname: demo\ndescription: \"  \"\n---\n", "skills/demo/SKILL.md:3: Empty skill description"},
		{"long description", "---\nname: demo\ndescription: " + long + "\n---\n", "skills/demo/SKILL.md:3: Skill description too long"},
		{"number description", "---\nname: demo\ndescription: 12\n---\n", "skills/demo/SKILL.md:3: Invalid frontmatter field"},
		{"unknown field", "---\nname: demo\ndescription: x\nauthor: me\n---\n", "skills/demo/SKILL.md:4: Unknown frontmatter field"},
		{"duplicate field", "---\nname: demo\ndescription: x\nname: demo\n---\n", "skills/demo/SKILL.md:4: Duplicate frontmatter field"},
		{"metadata value", "---\nname: demo\ndescription: x\nmetadata:\n  n: 1\n---\n", "skills/demo/SKILL.md:5: Invalid frontmatter field"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, got := loadSkillSpec(t, c.md, nil)
			joined := strings.Join(got, "\n")
			if c.want == "" && len(got) > 0 || c.want != "" && !strings.Contains(joined, c.want) {
				t.Errorf("diagnostics:\n%s\nwant %q", joined, c.want)
			}
		})
	}
}

// TestSkillFilesRules: a skill's files are read like spec files: a named
// pipe is refused without blocking, a symlink out of the spec directory
// is refused, dotfiles are left out, and each file gets its digest.
func TestSkillFilesRules(t *testing.T) {
	md := "---\nname: demo\ndescription: Does the demo.\n---\nBody.\n"
	dir, got := loadSkillSpec(t, md, map[string]string{"refs/a.txt": "a\n", ".DS_Store": "junk"})
	if len(got) > 0 {
		t.Fatal(got)
	}
	spec, diags := Load(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sk := spec.Skills[0]
	if len(sk.Files) != 2 || sk.Files[0].Path != "SKILL.md" || sk.Files[1].Path != "refs/a.txt" {
		t.Fatalf("files %+v", sk.Files)
	}
	if sk.Files[1].Digest != "sha256:87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7" || sk.Files[1].Size != 2 {
		t.Errorf("refs/a.txt: %s, %d bytes", sk.Files[1].Digest, sk.Files[1].Size)
	}

	fifo := filepath.Join(dir, "skills/demo/pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, diags := Load(dir); !strings.Contains(diags.Error(), "Not a regular file") {
		t.Errorf("a FIFO in the skill: %v", diags)
	}
	os.Remove(fifo)

	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "skills/demo/leak")); err != nil {
		t.Fatal(err)
	}
	if _, diags := Load(dir); !strings.Contains(diags.Error(), "symlink that leads out of the spec directory") {
		t.Errorf("a symlink out of the spec: %v", diags)
	}
}

// FuzzSkillFrontmatter: any SKILL.md yields diagnostics or a frontmatter,
// never a panic.
func FuzzSkillFrontmatter(f *testing.F) {
	f.Add([]byte("---\nname: demo\ndescription: x\nmetadata:\n  a: b\n---\nbody"))
	f.Add([]byte("---\n&a [*a]\n---\n"))
	f.Add([]byte("---\nname: !!binary aGk=\n---\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fm, diags := checkFrontmatter("SKILL.md", src, "demo")
		if !diags.HasErrors() && len(fm.json) == 0 {
			t.Fatal("no error and no frontmatter")
		}
	})
}
