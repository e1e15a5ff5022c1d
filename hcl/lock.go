package hcl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
)

// LockFileName is the lock file's name inside a spec directory.
const LockFileName = "toolgen.lock.json"

// LockVersion is the format version this package reads and writes.
const LockVersion = 1

// Lock is toolgen.lock.json: what each external server exposed when
// `toolgen lock` ran.
//
//	{"version":1,"servers":{"github":{"tools":[{"name":…,"description":…,"inputSchema":…,"hash":…}]}}}
type Lock struct {
	Version int                    `json:"version"`
	Servers map[string]*LockServer `json:"servers"`
}

// LockServer is one server's recorded tools/list, sorted by name, and
// its skills/list (the Skills extension) when it serves one.
type LockServer struct {
	Tools  []LockTool  `json:"tools"`
	Skills []LockSkill `json:"skills,omitempty"`
}

// LockSkill is one upstream skill: the digest of its listed frontmatter
// and the digest of each file, as the server listed them.
type LockSkill struct {
	Name        string          `json:"name"`
	Frontmatter string          `json:"frontmatter"` // decl.FrontmatterDigest
	Files       []LockSkillFile `json:"files"`
}

// LockSkillFile is one file of a locked skill, by its path in the skill.
type LockSkillFile struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
}

// LockTool is one tool as the server described it. Title, annotations,
// output schema and _meta are recorded since issue 11; lock files written
// before have none and read as before. The hash covers what it always
// did (name, description, input schema), so those files stay current.
type LockTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
	Hash         string          `json:"hash"`
}

// ToolHash fingerprints a tool's name, description and input schema, so a
// changed tool is drift even when its name is not. The schema is compacted
// first; key order inside it is the server's and counts.
func ToolHash(name, description string, inputSchema json.RawMessage) string {
	var schema bytes.Buffer
	if len(inputSchema) > 0 && json.Compact(&schema, inputSchema) != nil {
		schema.Reset()
		schema.Write(inputSchema)
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(name), []byte(description), schema.Bytes()} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Marshal writes the lock in its canonical form: tools sorted by name,
// schemas compacted, hashes filled in, two-space indent, trailing newline.
func (l *Lock) Marshal() ([]byte, error) {
	out := Lock{Version: LockVersion, Servers: map[string]*LockServer{}}
	for name, s := range l.Servers {
		tools := make([]LockTool, len(s.Tools))
		for i, t := range s.Tools {
			for _, f := range []struct {
				what string
				raw  *json.RawMessage
			}{{"input schema", &t.InputSchema}, {"output schema", &t.OutputSchema}, {"annotations", &t.Annotations}, {"_meta", &t.Meta}} {
				if len(*f.raw) > 0 {
					var buf bytes.Buffer
					if err := json.Compact(&buf, *f.raw); err != nil {
						return nil, fmt.Errorf("server %q tool %q: %s: %w", name, t.Name, f.what, err)
					}
					*f.raw = buf.Bytes()
				}
			}
			t.Hash = ToolHash(t.Name, t.Description, t.InputSchema)
			tools[i] = t
		}
		sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
		out.Servers[name] = &LockServer{Tools: tools, Skills: sortedLockSkills(s.Skills)}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// LockOffsetError is a lock file problem found at a byte offset that
// json.SyntaxError does not cover, such as data after the JSON object.
type LockOffsetError struct {
	Offset int64
	Msg    string
}

func (e *LockOffsetError) Error() string { return e.Msg }

// ParseLock reads a lock file's content.
func ParseLock(b []byte) (*Lock, error) {
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, err
	}
	// Decode stops after the first value; anything but whitespace after it
	// means the file is not what toolgen lock wrote.
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(b[end:], " \t\r\n"); len(rest) > 0 {
		return nil, &LockOffsetError{Offset: int64(len(b) - len(rest)), Msg: "unexpected data after the lock's JSON object"}
	}
	if l.Version != LockVersion {
		return nil, fmt.Errorf("version %d is not supported (this toolgen reads version %d); run toolgen lock again", l.Version, LockVersion)
	}
	for name, s := range l.Servers {
		if s == nil {
			return nil, fmt.Errorf("server %q has no tools list", name)
		}
		seen := map[string]bool{}
		for _, t := range s.Tools {
			if t.Name == "" {
				return nil, fmt.Errorf("server %q has a tool without a name", name)
			}
			if seen[t.Name] {
				return nil, fmt.Errorf("server %q lists tool %q twice", name, t.Name)
			}
			seen[t.Name] = true
		}
		sort.Slice(s.Tools, func(i, j int) bool { return s.Tools[i].Name < s.Tools[j].Name })
		seen = map[string]bool{}
		for _, sk := range s.Skills {
			if sk.Name == "" || seen[sk.Name] {
				return nil, fmt.Errorf("server %q lists a skill without a name or twice (%q)", name, sk.Name)
			}
			seen[sk.Name] = true
		}
		s.Skills = sortedLockSkills(s.Skills)
	}
	return &l, nil
}

// sortedLockSkills orders skills by name and their files by path.
func sortedLockSkills(in []LockSkill) []LockSkill {
	if len(in) == 0 {
		return nil
	}
	out := make([]LockSkill, len(in))
	for i, sk := range in {
		sk.Files = append([]LockSkillFile(nil), sk.Files...)
		sort.Slice(sk.Files, func(a, b int) bool { return sk.Files[a].Path < sk.Files[b].Path })
		out[i] = sk
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
