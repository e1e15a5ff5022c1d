package skills

import (
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

var demo = &decl.Skill{
	Name:        "demo",
	Frontmatter: json.RawMessage(`{"description":"d","name":"demo"}`),
	Files: []decl.SkillFile{
		{Path: "SKILL.md", Size: 5, Digest: "sha256:a", MIMEType: "text/markdown", Data: "hello"},
		{Path: "refs/a.md", Size: 1, Digest: "sha256:b", MIMEType: "text/markdown", Data: "a"},
		{Path: "refs/deep/b.py", Size: 1, Digest: "sha256:c", MIMEType: "text/x-python", Data: "b"},
	},
}

func TestEntryOf(t *testing.T) {
	got := EntryOf(demo)
	want := Entry{URI: "skill://demo/SKILL.md", Frontmatter: demo.Frontmatter, Resources: []File{
		{URI: "skill://demo/SKILL.md", Digest: "sha256:a", Size: 5},
		{URI: "skill://demo/refs/a.md", Digest: "sha256:b", Size: 1},
		{URI: "skill://demo/refs/deep/b.py", Digest: "sha256:c", Size: 1},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDirectory(t *testing.T) {
	list := func(uri string) []string {
		children, ok := Directory([]*decl.Skill{demo}, uri)
		if !ok {
			return nil
		}
		out := []string{}
		for _, c := range children {
			out = append(out, c.URI+" "+c.MIMEType)
		}
		return out
	}
	for uri, want := range map[string][]string{
		"skill://demo":            {"skill://demo/SKILL.md text/markdown", "skill://demo/refs inode/directory"},
		"skill://demo/":           {"skill://demo/SKILL.md text/markdown", "skill://demo/refs inode/directory"},
		"skill://demo/refs":       {"skill://demo/refs/a.md text/markdown", "skill://demo/refs/deep inode/directory"},
		"skill://demo/refs/deep":  {"skill://demo/refs/deep/b.py text/x-python"},
		"skill://demo/SKILL.md":   nil, // a file, not a directory
		"skill://demo/ref":        nil, // a prefix of a directory's name
		"skill://other":           nil,
		"file:///demo":            nil,
		"skill://demo/refs/a.md/": nil,
	} {
		if diff := cmp.Diff(want, list(uri)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", uri, diff)
		}
	}
}

// An upstream skill (server "up", its own name "notes", exposed as
// up__notes) is served at skill://up/notes/…: the final <skill-path>
// segment equals its frontmatter's name, as SEP-2640 requires, and
// skill://up is a directory above it.
var upstream = &decl.Skill{
	Name: "up__notes", Server: "up", Original: "notes",
	Frontmatter: json.RawMessage(`{"description":"n","name":"notes"}`),
	Files: []decl.SkillFile{
		{Path: "SKILL.md", Size: 5, Digest: "sha256:d", Source: "skill://notes/SKILL.md"},
		{Path: "refs/c.md", Size: 1, Digest: "sha256:e", Source: "skill://notes/refs/c.md"},
	},
}

func TestUpstreamSkillURIs(t *testing.T) {
	e := EntryOf(upstream)
	if e.URI != "skill://up/notes/SKILL.md" || e.Resources[1].URI != "skill://up/notes/refs/c.md" {
		t.Errorf("entry = %+v", e)
	}
	var fm struct{ Name string }
	if err := json.Unmarshal(e.Frontmatter, &fm); err != nil || path.Base(path.Dir(e.URI)) != fm.Name {
		t.Errorf("the final segment of %s is not the frontmatter's name %q", e.URI, fm.Name)
	}
	for uri, want := range map[string][]string{
		"skill://up":            {"skill://up/notes"},
		"skill://up/notes":      {"skill://up/notes/SKILL.md", "skill://up/notes/refs"},
		"skill://up/notes/refs": {"skill://up/notes/refs/c.md"},
		"skill://up__notes":     nil,
		"skill://notes":         nil,
		"skill://u":             nil,
	} {
		children, _ := Directory([]*decl.Skill{demo, upstream}, uri)
		var got []string
		for _, c := range children {
			got = append(got, c.URI)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", uri, diff)
		}
	}
}

// FuzzDirectory: any URI is answered without a panic, and every child
// listed lies under the URI asked for.
func FuzzDirectory(f *testing.F) {
	for _, s := range []string{"skill://up", "skill://up/notes/refs", "skill://demo/", "skill:///", "skill://up//notes", "skill://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		children, _ := Directory([]*decl.Skill{demo, upstream}, uri)
		base := strings.TrimSuffix(uri, "/") + "/"
		for _, c := range children {
			if !strings.HasPrefix(c.URI, base) {
				t.Errorf("%s lists %s", uri, c.URI)
			}
		}
	})
}
