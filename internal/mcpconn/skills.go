package mcpconn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's skills (the Skills extension, SEP-2640), for agents that pass
// them on: skills/list fetched on first use and kept for the session until
// the server's resource or prompt lists change; no file is read until
// someone loads it (no prefetch), and every file read is checked against
// the entry it was listed with — size, then SHA-256 digest, then, for
// SKILL.md, its frontmatter field by field — before its bytes are handed on.

// SkillsExtension is the Skills extension's identifier in capabilities.
const SkillsExtension = "io.modelcontextprotocol/skills"

// SkillFileName is the file every skill has at its root.
const SkillFileName = "SKILL.md"

// Skill is one skills/list entry, as the server sent it.
type Skill struct {
	URI         string          `json:"uri"`         // of its SKILL.md
	Frontmatter json.RawMessage `json:"frontmatter"` // SKILL.md's frontmatter as a JSON object
	Resources   []SkillFile     `json:"resources"`
}

// SkillFile is one file of a listed skill.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"` // sha256:<hex>
	Size   int64  `json:"size"`
}

type skillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsListResult struct {
	mcp.ResultBase
	Skills     []Skill `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// Bounds on what a server's skills/list may make us hold.
const (
	maxSkillPages = 100
	maxSkills     = 1000
)

// ErrSkillVerify is wrapped by every verification failure of a skill file.
var ErrSkillVerify = errors.New("skill file failed verification")

// skillList caches one connected session's skills/list.
type skillList struct {
	mu     sync.Mutex
	cs     *mcp.ClientSession
	gen    uint64
	skills []Skill
	have   bool
}

// registerSkillMethods lets a client send skills/list.
func registerSkillMethods(c *mcp.Client) {
	if err := mcp.AddSendingCustomMethod[*skillsListParams, *skillsListResult](c, "skills/list"); err != nil {
		panic(err) // only a name go-sdk made standard can fail: a bug to see at once
	}
}

// ServesSkills reports whether the server declared the Skills extension.
func (c *Conn) ServesSkills() bool {
	caps := c.Capabilities()
	if caps == nil || caps.Extensions == nil {
		return false
	}
	_, ok := caps.Extensions[SkillsExtension]
	return ok
}

// Skills is the server's skills/list (every page); nil for a server that
// does not declare the extension. The slice is shared: do not modify it.
func (c *Conn) Skills(ctx context.Context) ([]Skill, error) {
	if !c.ServesSkills() {
		return nil, nil
	}
	cs, err := c.session()
	if err != nil {
		return nil, err
	}
	l := &c.s.skills
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen := c.s.featureGen.Load(); l.cs != cs || l.gen != gen || !l.have {
		list, err := listSkills(ctx, cs)
		if err != nil {
			return nil, fmt.Errorf("server %q: skills/list: %w", c.s.cfg.Name, c.redactErr(err))
		}
		l.cs, l.gen, l.skills, l.have = cs, gen, list, true
	}
	return l.skills, nil
}

func listSkills(ctx context.Context, cs *mcp.ClientSession) ([]Skill, error) {
	var out []Skill
	cursor := ""
	for page := 0; ; page++ {
		if page == maxSkillPages {
			return nil, fmt.Errorf("more than %d pages", maxSkillPages)
		}
		res, err := mcp.CallCustomMethod[*skillsListParams, *skillsListResult](ctx, cs, "skills/list", &skillsListParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, sk := range res.Skills {
			if err := sk.check(); err != nil {
				return nil, err
			}
			out = append(out, sk)
		}
		if len(out) > maxSkills {
			return nil, fmt.Errorf("more than %d skills", maxSkills)
		}
		if res.NextCursor == "" {
			return out, nil
		}
		cursor = res.NextCursor
	}
}

// check refuses an entry the server could not have meant: no SKILL.md
// among its files, a malformed digest or size, frontmatter not an object.
func (sk *Skill) check() error {
	if !strings.HasSuffix(sk.URI, "/"+SkillFileName) {
		return fmt.Errorf("skill entry %q: its uri is not a SKILL.md", sk.URI)
	}
	if fm := strings.TrimSpace(string(sk.Frontmatter)); !strings.HasPrefix(fm, "{") {
		return fmt.Errorf("skill entry %q: frontmatter is not an object", sk.URI)
	}
	hasMain := false
	for _, f := range sk.Resources {
		d, ok := strings.CutPrefix(f.Digest, "sha256:")
		if b, err := hex.DecodeString(d); !ok || err != nil || len(b) != sha256.Size {
			return fmt.Errorf("skill entry %q: file %q has digest %q, not sha256:<64 hex digits>", sk.URI, f.URI, f.Digest)
		}
		if f.Size < 0 {
			return fmt.Errorf("skill entry %q: file %q has a negative size", sk.URI, f.URI)
		}
		hasMain = hasMain || f.URI == sk.URI
	}
	if !hasMain {
		return fmt.Errorf("skill entry %q does not list its SKILL.md among its resources", sk.URI)
	}
	return nil
}

// File is the listed file at uri, if the skill has one.
func (sk *Skill) File(uri string) (SkillFile, bool) {
	for _, f := range sk.Resources {
		if f.URI == uri {
			return f, true
		}
	}
	return SkillFile{}, false
}

// ReadSkillFile reads one listed file of a skill and verifies it against
// the entry: the bytes are returned only when they match. A mismatch
// wraps ErrSkillVerify.
func (c *Conn) ReadSkillFile(ctx context.Context, sk *Skill, uri string) (data []byte, mimeType string, err error) {
	f, ok := sk.File(uri)
	if !ok {
		return nil, "", fmt.Errorf("server %q: skill %q lists no file %q", c.s.cfg.Name, sk.URI, uri)
	}
	res, err := c.ReadResource(ctx, uri)
	if err != nil {
		return nil, "", err
	}
	if len(res.Contents) != 1 || res.Contents[0] == nil {
		return nil, "", fmt.Errorf("server %q: %q: %w: expected one content, got %d", c.s.cfg.Name, uri, ErrSkillVerify, len(res.Contents))
	}
	rc := res.Contents[0]
	data = rc.Blob
	if data == nil {
		data = []byte(rc.Text)
	}
	if err := VerifySkillFile(sk, f, data); err != nil {
		return nil, "", fmt.Errorf("server %q: %w", c.s.cfg.Name, err)
	}
	return data, rc.MIMEType, nil
}

// compareFrontmatter compares a SKILL.md's YAML frontmatter with the
// listed one. It needs a YAML parser, which an agent links only when its
// spec uses skills (runtime/skills registers internal/frontmatter's), so
// the YAML code is not in every agent; without it a skill's SKILL.md is
// refused, never taken unchecked.
var compareFrontmatter func(src []byte, listed json.RawMessage) error

// RegisterFrontmatter sets how SKILL.md frontmatter is compared.
func RegisterFrontmatter(compare func(src []byte, listed json.RawMessage) error) {
	compareFrontmatter = compare
}

// VerifySkillFile checks a file's bytes against its entry: size, digest,
// and for the skill's SKILL.md the frontmatter against the listed one.
func VerifySkillFile(sk *Skill, f SkillFile, data []byte) error {
	if int64(len(data)) != f.Size {
		return fmt.Errorf("%w: %q is %d bytes, the skill lists %d", ErrSkillVerify, f.URI, len(data), f.Size)
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); !strings.EqualFold(got, f.Digest) {
		return fmt.Errorf("%w: %q has digest %s, the skill lists %s", ErrSkillVerify, f.URI, got, f.Digest)
	}
	if f.URI == sk.URI {
		if compareFrontmatter == nil {
			return fmt.Errorf("%w: %q: checking its frontmatter needs the skills support linked into this agent "+
				"(declare a skill, or set allow_skills or deny_skills on the server; or import _ \"github.com/toolgen-dev/toolgen/runtime/skills\")", ErrSkillVerify, f.URI)
		}
		if err := compareFrontmatter(data, sk.Frontmatter); err != nil {
			return fmt.Errorf("%w: %q: %v", ErrSkillVerify, f.URI, err)
		}
	}
	return nil
}
