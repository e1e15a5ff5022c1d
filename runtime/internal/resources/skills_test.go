package resources

import (
	"context"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// TestSkillURIOwnedOnce: a declared skill named like a server, with a
// file where that server's skill has its SKILL.md, keeps the URI; the
// listing names it once, and a read gets the declared file.
func TestSkillURIOwnedOnce(t *testing.T) {
	declared := &decl.Skill{Name: "up", Files: []decl.SkillFile{{Path: "SKILL.md"}, {Path: "release-notes/SKILL.md", Data: "declared"}}}
	upstream := &decl.Skill{Name: "up__release-notes", Server: "up", Original: "release-notes", Files: []decl.SkillFile{{Path: "SKILL.md"}}}
	s := &Set{Skills: []*decl.Skill{declared, upstream}, Admits: func(string, string) bool { return true }}
	n := 0
	for _, r := range s.List(context.Background()) {
		if r.URI == "skill://up/release-notes/SKILL.md" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("skill://up/release-notes/SKILL.md listed %d times, want once", n)
	}
	e, err := s.owner(context.Background(), "skill://up/release-notes/SKILL.md")
	if err != nil || e.skillOf != declared {
		t.Errorf("owner = %+v, %v; want the declared skill", e.skillOf, err)
	}
}
