package hcl

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// skillBlock is a declared skill: a directory with a SKILL.md, read after
// decoding (skill_files.go), when the spec's file system is at hand.
type skillBlock struct {
	Name      string
	NameRange hcl.Range
	Dir       string // relative to the spec directory, cleaned, with "/"
	DirRange  hcl.Range
	DeclRange hcl.Range
	Skill     *ir.Skill // the files read and checked; nil when they could not be
}

var skillSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "dir"}}}

// skillNameRe is the Agent Skills naming rule: lowercase letters, digits
// and single hyphens inside, at most 64 characters.
var skillNameRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func validSkillName(name string) bool { return len(name) <= 64 && skillNameRe.MatchString(name) }

func decodeSkill(block *hcl.Block, ctx *hcl.EvalContext) (*skillBlock, hcl.Diagnostics) {
	s := &skillBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange, DirRange: block.LabelRanges[0]}
	var diags hcl.Diagnostics
	if !validSkillName(s.Name) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid skill name",
			Detail:  fmt.Sprintf("The skill name %q must follow the Agent Skills naming rule: 1 to 64 lowercase letters, digits and hyphens, with no hyphen at the start or end and no two in a row (e.g. \"code-review\").", s.Name),
			Subject: s.NameRange.Ptr(), Context: block.DefRange.Ptr()})
	}
	content, d := block.Body.Content(skillSchema)
	diags = append(diags, d...)
	s.Dir = "skills/" + s.Name
	at := content.Attributes["dir"]
	if at == nil {
		return s, diags
	}
	s.Dir = "" // unless it is a valid one: nothing to read
	v, d := evalString(at.Expr, ctx)
	diags = append(diags, d...)
	if d.HasErrors() {
		return s, diags
	}
	s.DirRange = at.Expr.Range()
	p := filepath.ToSlash(v)
	clean := path.Clean(p)
	errAt := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: s.DirRange.Ptr(), Context: block.DefRange.Ptr()})
	}
	switch {
	case p == "" || clean == "." || !fs.ValidPath(clean):
		errAt("Invalid skill directory", fmt.Sprintf("%q is outside the spec directory; a skill's dir is a path relative to it, without \"..\", such as \"skills/%s\".", v, s.Name))
	case path.Base(clean) != s.Name:
		errAt("Skill directory named differently", fmt.Sprintf("Skill %q is in directory %q; Agent Skills name a skill after its directory, so the directory must be named %q.", s.Name, v, s.Name))
	default:
		s.Dir = clean
	}
	return s, diags
}
