package runtime

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// TestExplainUpstreamSkills: explain lists a server whose skills pass
// through with its allow_skills/deny_skills and the use entry that brings
// it, each locked skill the policy admits under its exposed name, and a
// note for each one it keeps out, next to the declared skills.
func TestExplainUpstreamSkills(t *testing.T) {
	reg := skillRegistry("")
	reg.Servers = []decl.Server{{Name: "up", Transport: "stdio", Trusted: true,
		AllowSkills: []string{"release-*"}, DenySkills: []string{"release-draft"}, SkillsLocked: true,
		LockedSkills: []decl.LockedSkill{{Name: "release-notes"}, {Name: "release-draft"}, {Name: "secret-notes"}}}}
	reg.Agents[0].Use = append(reg.Agents[0].Use, decl.Use{Kind: decl.UseServer, Name: "up"})
	x, err := Explain(reg, ExplainOptions{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	want := []ExplainedFeature{
		{Name: "deploy", URI: "skill://deploy/SKILL.md", Reason: "tools.use[0] skill.deploy"},
		{Name: "server.up", Reason: "its skills, as up__NAME (tools.use[1] server.up), allow_skills = [release-*], deny_skills = [release-draft]"},
		{Name: "up__release-notes", URI: (&decl.Skill{Name: "up__release-notes", Server: "up", Original: "release-notes"}).URI(),
			Reason: "server up serves it as release-notes (lock file; tools.use[1] server.up), allow_skills = [release-*], deny_skills = [release-draft]"},
	}
	if len(x.Skills) != len(want) {
		t.Fatalf("skills = %+v", x.Skills)
	}
	for i := range want {
		if x.Skills[i] != want[i] {
			t.Errorf("skills[%d] = %+v, want %+v", i, x.Skills[i], want[i])
		}
	}
	notes := strings.Join(x.Notes, "\n")
	for _, kept := range []string{"skill release-draft of server up (lock file) is kept out by allow_skills = [release-*], deny_skills = [release-draft]", "skill secret-notes of server up (lock file) is kept out by allow_skills"} {
		if !strings.Contains(notes, kept) {
			t.Errorf("notes lack %q:\n%s", kept, notes)
		}
	}
	var b bytes.Buffer
	x.WriteTo(&b)
	if !strings.Contains(b.String(), "skills (3):") || !strings.Contains(b.String(), "up__release-notes") {
		t.Errorf("explain text:\n%s", b.String())
	}

	// tools.allowed cuts exposed names too.
	reg.Agents[0].Allowed = []string{"deploy", "up__other"}
	x, _ = Explain(reg, ExplainOptions{Agent: "a"})
	for _, s := range x.Skills {
		if s.Name == "up__release-notes" {
			t.Errorf("tools.allowed did not cut %+v", s)
		}
	}
	if !strings.Contains(strings.Join(x.Notes, "\n"), "skill up__release-notes of server up (lock file) is kept out by tools.allowed") {
		t.Errorf("notes: %q", x.Notes)
	}
}
