package frontmatter

import (
	"encoding/json"
	"strings"
	"testing"
)

const skillMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2\n  tags: [a, b]\n---\n\nSkill body.\n"

func TestCompare(t *testing.T) {
	listed := json.RawMessage(`{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","metadata":{"version":2,"tags":["a","b"]}}`)
	if err := Compare([]byte(skillMD), listed); err != nil {
		t.Fatalf("equal frontmatter: %v", err)
	}
	for _, tc := range []struct{ src, listed, want string }{
		{strings.Replace(skillMD, "Extract, fill", "Exfiltrate", 1), string(listed), `"description" differs`},
		{skillMD, `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents"}`, `"metadata" is in SKILL.md but not listed`},
		{skillMD, strings.Replace(string(listed), `}}`, `},"license":"MIT"}`, 1), `"license" is listed but not in SKILL.md`},
		{"no frontmatter\n", string(listed), "does not start with YAML frontmatter"},
		{"---\nname: [\n---\n", string(listed), "not valid YAML"},
		{skillMD, `[1]`, "not a JSON object"},
	} {
		err := Compare([]byte(tc.src), json.RawMessage(tc.listed))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compare(%q, %s) = %v, want an error with %q", tc.src, tc.listed, err, tc.want)
		}
	}
}

func FuzzCompare(f *testing.F) {
	f.Add([]byte(skillMD), []byte(`{"name":"x"}`))
	f.Add([]byte("---\n---\n"), []byte(`{}`))
	f.Fuzz(func(t *testing.T, src, listed []byte) {
		_ = Compare(src, listed) // never a panic
	})
}
