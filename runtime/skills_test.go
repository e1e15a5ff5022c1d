package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func skillFile(path, data string) decl.SkillFile {
	sum := sha256.Sum256([]byte(data))
	return decl.SkillFile{Path: path, Size: int64(len(data)), Digest: "sha256:" + hex.EncodeToString(sum[:]), MIMEType: "text/markdown", Data: data}
}

// skillRegistry: agent "a" uses skill "deploy" (and discovery), agent
// "b" gets "review" from a bundle, which a workflow step also carries.
func skillRegistry(baseURL string) *Registry {
	return &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{MaxDepth: 2, Model: "m"},
		Models:    []decl.Model{{Name: "m", Provider: "openai", ModelName: decl.Value{{Lit: "x"}}, BaseURL: decl.Value{{Lit: baseURL}}, APIKey: decl.Value{{Lit: "sk-test"}}}},
		Skills: []decl.Skill{
			{Name: "deploy", Description: "Roll out a release to production safely.", Files: []decl.SkillFile{skillFile("SKILL.md", "---\nname: deploy\n---\nRun the canary first.\n")}},
			{Name: "review", Description: "Review a pull request.", Files: []decl.SkillFile{skillFile("SKILL.md", "---\nname: review\n---\nRead the diff.\n")}},
		},
		Bundles:   []decl.Bundle{{Name: "reviewing", Skills: []string{"review"}}},
		Workflows: []decl.Workflow{{Name: "w", Roles: []decl.Role{{Name: "r", Steps: []decl.Step{{Name: "s", Bundles: []string{"reviewing"}}}}}}},
		Route: func(w, r, s string) []string {
			if w == "w" && r == "r" && s == "s" {
				return []string{"reviewing"}
			}
			return nil
		},
		Agents: []decl.Agent{
			{Name: "a", Discovery: true, Use: []decl.Use{{Kind: decl.UseSkill, Name: "deploy"}}, Skills: []string{"deploy"}},
			{Name: "b", Use: []decl.Use{{Kind: decl.UseBundle, Name: "reviewing"}}, Skills: []string{"review"}},
		},
	}
}

func TestToolFindFindsSkills(t *testing.T) {
	s := open(t, skillRegistry(""), "a", Options{Logger: slog.New(slog.DiscardHandler)})
	out := mustOK(t, call(t, s, decl.ToolFind, `{"query":"roll out a release"}`))
	var res struct{ Results []FindHit }
	json.Unmarshal([]byte(out), &res)
	if len(res.Results) != 1 || res.Results[0].Name != "deploy" || res.Results[0].Kind != "skill" || res.Results[0].URI != "skill://deploy/SKILL.md" {
		t.Errorf("tool_find = %s", out)
	}
	if hits := s.Find("review a pull request", 10); len(hits) != 0 {
		t.Errorf("found a skill the agent does not use: %+v", hits)
	}
}

// TestSkillsNarrowedByStep: inside a workflow step, the skills are the
// step's bundles', not the agent's own.
func TestSkillsNarrowedByStep(t *testing.T) {
	s := open(t, skillRegistry(""), "a", Options{Logger: slog.New(slog.DiscardHandler)})
	names := func() (out []string) {
		for _, sk := range s.Skills(context.Background()) {
			out = append(out, sk.Name)
		}
		return out
	}
	if got := strings.Join(names(), ","); got != "deploy" {
		t.Fatalf("skills %s", got)
	}
	if _, err := s.ToolsForStep(context.Background(), "w", "r", "s"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(), ","); got != "review" {
		t.Errorf("skills in the step: %s, want review", got)
	}
	res := s.Resources(context.Background())
	if len(res) != 1 || res[0].URI != "skill://review/SKILL.md" {
		t.Errorf("resources in the step: %+v", res)
	}
	x, err := Explain(s.reg, ExplainOptions{Agent: "b"})
	if err != nil || len(x.Skills) != 1 || x.Skills[0].Reason != "tools.use[0] bundle.reviewing carries it" {
		t.Errorf("explain: %+v, %v", x.Skills, err)
	}
}

// TestSkillLoadRefusesTamperedFile: a file whose bytes no longer match
// the digest toolgen recorded is neither loaded nor served.
func TestSkillLoadRefusesTamperedFile(t *testing.T) {
	srv := modeltest.NewServer(t,
		modeltest.Turn{ToolCalls: []modeltest.Call{{Name: decl.ToolSkillLoad, Args: `{"name":"deploy"}`}}},
		modeltest.Turn{Text: "done"})
	reg := skillRegistry(srv.OpenAIBaseURL())
	reg.Skills[0].Files[0].Data = strings.Replace(reg.Skills[0].Files[0].Data, "canary", "CANARY", 1)
	s := open(t, reg, "a", Options{Logger: slog.New(slog.DiscardHandler)})
	if _, err := s.ReadResource(context.Background(), "skill://deploy/SKILL.md"); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("read of a tampered file: %v", err)
	}
	res, err := s.Run(context.Background(), "deploy it", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "done" {
		t.Fatalf("answer %q", res.Answer)
	}
	reqs := srv.Requests()
	got := reqs[1].Messages[len(reqs[1].Messages)-1].Results
	if len(got) != 1 || !got[0].IsError && !strings.Contains(got[0].Text, "refused") || strings.Contains(got[0].Text, "CANARY") {
		t.Errorf("skill_load of a tampered file gave %+v", got)
	}
}

// TestSkillLoadCountsAgainstBudget: a loaded skill fills the model's
// context like a tool result, so context_budget counts it and refuses the
// load that would go over.
func TestSkillLoadCountsAgainstBudget(t *testing.T) {
	load := modeltest.Turn{ToolCalls: []modeltest.Call{{Name: decl.ToolSkillLoad, Args: `{"name":"deploy"}`}}}
	srv := modeltest.NewServer(t, load, load, modeltest.Turn{Text: "done"})
	reg := skillRegistry(srv.OpenAIBaseURL())
	// Room for one load of SKILL.md (36 bytes, 9 tokens), not two.
	reg.Defaults.ContextBudget = 12
	s := open(t, reg, "a", Options{Logger: slog.New(slog.DiscardHandler)})
	if _, err := s.Run(context.Background(), "deploy it", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	first := reqs[1].Messages[len(reqs[1].Messages)-1].Results
	second := reqs[2].Messages[len(reqs[2].Messages)-1].Results
	if len(first) != 1 || first[0].IsError || !strings.Contains(first[0].Text, "Run the canary first.") {
		t.Errorf("first skill_load within the budget gave %+v", first)
	}
	if len(second) != 1 || !strings.Contains(second[0].Text, "budget exceeded") || strings.Contains(second[0].Text, "canary") {
		t.Errorf("second skill_load over the budget gave %+v", second)
	}
}
