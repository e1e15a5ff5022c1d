package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/loop"
)

// Skills in the agent's own loop (agent run), by progressive disclosure:
// the model is told each skill's name and description only, and
// skill_load hands it SKILL.md, then the files SKILL.md points to, when it
// asks. Every file is checked against its recorded digest before it is
// handed over.

// EventSkillLoad is a skill file handed to the model by skill_load.
const EventSkillLoad = event.SkillLoad

var skillLoadSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","description":"The skill's name, as listed in the instructions."},` +
	`"path":{"type":"string","description":"A file of the skill, relative to its directory, as SKILL.md names it; omitted: SKILL.md."}},` +
	`"required":["name"],"additionalProperties":false}`)

// skillLoadTool is skill_load as the model sees it, or false when the
// agent has no skills.
func (a *sessionAgent) skillLoadTool() (model.Tool, bool) {
	if len(a.skills()) == 0 {
		return model.Tool{}, false
	}
	return model.Tool{
		Name:        decl.ToolSkillLoad,
		Description: "Load one of your skills: its SKILL.md, with the list of its other files, or one of those files (path). Load a skill when the task matches its description, before you start on it.",
		InputSchema: skillLoadSchema,
	}, true
}

func (a *sessionAgent) skills() []*decl.Skill {
	st := a.s.st.Load()
	if st == nil {
		return nil
	}
	return a.s.skillsOf(st.ctx, st)
}

// skillsPrompt lists the agent's skills for the system prompt: names and
// descriptions, never their bodies.
func (a *sessionAgent) skillsPrompt() string {
	sks := a.skills()
	if len(sks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("You have these skills. When a task matches one, call " + decl.ToolSkillLoad + " with its name first and follow what it says:\n")
	for _, sk := range sks {
		fmt.Fprintf(&b, "- %s: %s\n", sk.Name, sk.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

// loadSkill answers skill_load.
func (a *sessionAgent) loadSkill(ctx context.Context, args json.RawMessage) loop.ToolOutcome {
	var in struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}
	if err := json.Unmarshal(args, &in); err != nil || in.Name == "" {
		return loop.ToolOutcome{Text: decl.ToolSkillLoad + `: give the skill's name, e.g. {"name": "release-notes"}`, IsError: true}
	}
	var sk *decl.Skill
	var names []string
	for _, s := range a.skills() {
		names = append(names, s.Name)
		if s.Name == in.Name {
			sk = s
		}
	}
	if sk == nil {
		return loop.ToolOutcome{Text: fmt.Sprintf("%s: no skill %q; yours are %s", decl.ToolSkillLoad, in.Name, strings.Join(names, ", ")), IsError: true}
	}
	path := in.Path
	if path == "" {
		path = decl.SkillFileName
	}
	var f *decl.SkillFile
	for i := range sk.Files {
		if sk.Files[i].Path == path {
			f = &sk.Files[i]
		}
	}
	log := a.s.opts.Logger
	if f == nil {
		return loop.ToolOutcome{Text: fmt.Sprintf("%s: skill %q has no file %q; its files are %s", decl.ToolSkillLoad, sk.Name, path, strings.Join(skillPaths(sk), ", ")), IsError: true}
	}
	data, mime, err := a.s.readSkillFile(ctx, a.s.st.Load(), sk, f)
	if err != nil {
		event.Emit(log, slog.LevelError, event.SkillLoad, slog.String("agent", a.Name()), slog.String("skill", sk.Name), slog.String("path", f.Path), slog.String("error", err.Error()))
		return loop.ToolOutcome{Text: fmt.Sprintf("%s: %s: refused, %v", decl.ToolSkillLoad, sk.Name, err), IsError: true}
	}
	if !utf8.Valid(data) {
		return loop.ToolOutcome{Text: fmt.Sprintf("%s: %s/%s is binary (%s, %d bytes) and cannot be shown as text", decl.ToolSkillLoad, sk.Name, f.Path, mime, f.Size), IsError: true}
	}
	event.Emit(log, slog.LevelInfo, event.SkillLoad, slog.String("agent", a.Name()), slog.String("skill", sk.Name), slog.String("path", f.Path), slog.Int64("bytes", f.Size))
	text := string(data)
	if f.Path == decl.SkillFileName && len(sk.Files) > 1 {
		text += "\n\n[Other files of skill " + sk.Name + ", loaded with " + decl.ToolSkillLoad + " and their path: " + strings.Join(skillPaths(sk)[1:], ", ") + "]"
	}
	// A skill's text fills the model's context like a tool result, so it
	// counts against context_budget the same way.
	if st := a.s.st.Load(); st != nil && st.budget.Limit > 0 {
		if _, err := st.chargeBudget(ctx, len(text)); err != nil {
			return loop.ToolOutcome{Text: fmt.Sprintf("%s: %s: %v", decl.ToolSkillLoad, sk.Name, err), IsError: true}
		}
	}
	return loop.ToolOutcome{Text: text}
}

func skillPaths(sk *decl.Skill) []string {
	out := make([]string, len(sk.Files))
	for i, f := range sk.Files {
		out[i] = f.Path
	}
	return out
}
