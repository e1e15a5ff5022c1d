package decl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Skill is a declared skill (SEP-2640, Agent Skills): a directory with a
// SKILL.md and supporting files, read and checked by toolgen at generate
// time. The files' bytes are compiled into the generated package; the
// runtime checks each file against its digest before it serves or loads it.
type Skill struct {
	Name        string // the SKILL.md frontmatter's name, which is the directory's
	Description string // the frontmatter's description: all a model sees before it loads the skill
	// Frontmatter is SKILL.md's YAML frontmatter as a JSON object, what
	// skills/list sends verbatim.
	Frontmatter json.RawMessage
	Files       []SkillFile // SKILL.md first, then the others by path

	// Of a skill an upstream server serves (never in a registry): the
	// server and the skill's own name there; Name is then its exposed name.
	Server   string
	Original string
}

// SkillFile is one file of a skill.
type SkillFile struct {
	Path     string // relative to the skill's directory, with "/"
	Size     int64
	Digest   string // "sha256:" and 64 lowercase hex digits, of Data
	MIMEType string
	Data     string // empty for an upstream skill's file, which is read when loaded
	Source   string // an upstream skill's file: its URI on the server
}

// LockedSkill is an upstream skill as toolgen lock recorded it: the digest
// of its listed frontmatter and of each of its files.
type LockedSkill struct {
	Name        string // the server's own name for it
	Frontmatter string // sha256:<hex> of the frontmatter as compact JSON
	Files       []LockedSkillFile
}

// LockedSkillFile is one file of a locked skill.
type LockedSkillFile struct {
	Path   string // relative to the skill's directory
	Digest string
}

// SkillFileName is the file every skill has at its root.
const SkillFileName = "SKILL.md"

// UseSkill is a tools.use entry naming a declared skill.
const UseSkill UseKind = "skill"

// SkillScheme is the URI scheme of skill files: skill://<skill>/<path>.
const SkillScheme = "skill://"

// URI is the resource URI of a file of skill.
func (f *SkillFile) URI(skill string) string { return SkillScheme + skill + "/" + f.Path }

// Path is the skill's <skill-path> in its URIs (skill://<path>/SKILL.md):
// a declared skill's name; an upstream skill's server, then its own name.
// SEP-2640 requires the path's final segment to equal the frontmatter's
// name, which a proxy serves verbatim, so the exposed name (server, sep,
// name) cannot be that segment; the server is an organizational prefix.
func (sk *Skill) Path() string {
	if sk.Server != "" {
		return sk.Server + "/" + sk.Original
	}
	return sk.Name
}

// OwnName is the name in the skill's frontmatter: what its SKILL.md
// resource is named.
func (sk *Skill) OwnName() string {
	if sk.Server != "" {
		return sk.Original
	}
	return sk.Name
}

// URI is the URI of the skill's SKILL.md.
func (sk *Skill) URI() string { return SkillScheme + sk.Path() + "/" + SkillFileName }

// Verify checks the file's bytes against its recorded size and digest: a
// file is served or loaded only as toolgen read it.
func (f *SkillFile) Verify() error {
	if int64(len(f.Data)) != f.Size {
		return fmt.Errorf("skill file %s is %d bytes, not the %d recorded", f.Path, len(f.Data), f.Size)
	}
	sum := sha256.Sum256([]byte(f.Data))
	if d := "sha256:" + hex.EncodeToString(sum[:]); d != f.Digest {
		return fmt.Errorf("skill file %s has digest %s, not the %s recorded", f.Path, d, f.Digest)
	}
	return nil
}

// SkillNamed returns the declared skill of that name, or nil.
func (r *Registry) SkillNamed(name string) *Skill {
	for i := range r.Skills {
		if r.Skills[i].Name == name {
			return &r.Skills[i]
		}
	}
	return nil
}

// FrontmatterDigest fingerprints a listed skill's frontmatter, compacted
// (key order is the server's and counts), for the lock file.
func FrontmatterDigest(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	sum := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:])
}
