package ir

import (
	"encoding/json"

	"github.com/hashicorp/hcl/v2"
)

// Skill is a declared skill: its directory read and its SKILL.md checked
// at generate time.
type Skill struct {
	Name        string
	GoName      string
	Dir         string // relative to the spec directory, with "/"
	Description string // the frontmatter's description
	Frontmatter json.RawMessage
	Files       []*SkillFile // SKILL.md first, then by path
	Range       hcl.Range
}

// SkillFile is one file of a skill, with the size and digest generated
// code records.
type SkillFile struct {
	Path     string // relative to the skill's directory, with "/"
	Size     int64
	Digest   string // "sha256:" + 64 lowercase hex digits
	MIMEType string
	Data     []byte `json:"-"`
}
