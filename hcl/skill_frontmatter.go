package hcl

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	skillmd "github.com/toolgen-dev/toolgen/internal/frontmatter"
	"go.yaml.in/yaml/v3"
)

// The Agent Skills frontmatter: name and description are required; these
// are all the fields it defines.
var skillFields = []string{"allowed-tools", "compatibility", "description", "license", "metadata", "name"}

const (
	maxSkillDescription   = 1024
	maxSkillCompatibility = 500
)

type frontmatter struct {
	description string
	json        json.RawMessage
}

// checkFrontmatter reads SKILL.md's YAML frontmatter and checks it against
// the Agent Skills rules, with diagnostics at the file's own lines.
func checkFrontmatter(file string, src []byte, dirName string) (frontmatter, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	at := func(line, col int) *hcl.Range {
		p := hcl.Pos{Line: line, Column: max(col, 1)}
		return &hcl.Range{Filename: file, Start: p, End: hcl.Pos{Line: line, Column: p.Column + 1}}
	}
	errAt := func(rng *hcl.Range, summary, format string, args ...any) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng})
	}
	body, ok := frontmatterText(src)
	if !ok {
		errAt(at(1, 1), "Missing frontmatter", "%s must start with YAML frontmatter between two --- lines, with at least name and description:\n---\nname: %s\ndescription: What the skill does and when to use it.\n---", file, dirName)
		return frontmatter{}, diags
	}
	// The YAML starts on the file's second line.
	const offset = 1
	var doc yaml.Node
	if err := yaml.Unmarshal(body, &doc); err != nil {
		line := 1
		if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		errAt(at(line+offset, 1), "Invalid frontmatter", "The frontmatter of %s is not valid YAML: %s.", file, strings.TrimPrefix(err.Error(), "yaml: "))
		return frontmatter{}, diags
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		errAt(at(1+offset, 1), "Invalid frontmatter", "The frontmatter of %s must be a YAML mapping of fields (name: …, description: …).", file)
		return frontmatter{}, diags
	}
	m := doc.Content[0]
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := k.Value
		switch {
		case fields[key] != nil:
			errAt(at(k.Line+offset, k.Column), "Duplicate frontmatter field", "%s sets %q twice; the first is at line %d.", file, key, fields[key].Line+offset)
			continue
		case !contains(skillFields, key):
			errAt(at(k.Line+offset, k.Column), "Unknown frontmatter field", "%q is not an Agent Skills frontmatter field; those are %s. Put your own fields under metadata.%s", key, strings.Join(skillFields, ", "), didYouMean(key, skillFields))
		}
		fields[key] = v
		str := func() (string, bool) {
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
				errAt(at(v.Line+offset, v.Column), "Invalid frontmatter field", "%s in %s must be a string.", key, file)
				return "", false
			}
			return v.Value, true
		}
		switch key {
		case "name":
			if s, ok := str(); ok {
				switch {
				case !validSkillName(s):
					errAt(at(v.Line+offset, v.Column), "Invalid skill name", "The name %q must be 1 to 64 lowercase letters, digits and hyphens, with no hyphen at the start or end and no two in a row.", s)
				case s != dirName:
					errAt(at(v.Line+offset, v.Column), "Skill name differs from its directory", "%s names the skill %q, but it is in directory %q; Agent Skills require the name to be the directory's. Write name: %s.", file, s, dirName, dirName)
				}
			}
		case "description":
			if s, ok := str(); ok {
				switch n := utf8.RuneCountInString(s); {
				case strings.TrimSpace(s) == "":
					errAt(at(v.Line+offset, v.Column), "Empty skill description", "The description in %s is empty; a model chooses a skill by it alone. Say what the skill does and when to use it.", file)
				case n > maxSkillDescription:
					errAt(at(v.Line+offset, v.Column), "Skill description too long", "The description in %s is %d characters; Agent Skills allow at most %d.", file, n, maxSkillDescription)
				}
			}
		case "compatibility":
			if s, ok := str(); ok && utf8.RuneCountInString(s) > maxSkillCompatibility {
				errAt(at(v.Line+offset, v.Column), "Skill compatibility too long", "compatibility in %s is %d characters; Agent Skills allow at most %d.", file, utf8.RuneCountInString(s), maxSkillCompatibility)
			}
		case "license", "allowed-tools":
			str()
		case "metadata":
			if v.Kind != yaml.MappingNode {
				errAt(at(v.Line+offset, v.Column), "Invalid frontmatter field", "metadata in %s must be a mapping of string keys to string values.", file)
				break
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				if mv := v.Content[j+1]; mv.Kind != yaml.ScalarNode || mv.Tag != "!!str" {
					errAt(at(mv.Line+offset, mv.Column), "Invalid frontmatter field", "metadata.%s in %s must be a string; quote it.", v.Content[j].Value, file)
				}
			}
		}
	}
	for _, req := range []string{"name", "description"} {
		if fields[req] == nil {
			errAt(at(m.Line+offset, m.Column), "Missing frontmatter field", "The frontmatter of %s has no %s; Agent Skills require name and description.", file, req)
		}
	}
	if diags.HasErrors() {
		return frontmatter{}, diags
	}
	var v map[string]any
	if err := m.Decode(&v); err != nil {
		errAt(at(m.Line+offset, m.Column), "Invalid frontmatter", "The frontmatter of %s cannot be read: %s.", file, err)
		return frontmatter{}, diags
	}
	b, err := json.Marshal(v)
	if err != nil {
		errAt(at(m.Line+offset, m.Column), "Invalid frontmatter", "The frontmatter of %s has a value JSON cannot hold: %s.", file, err)
		return frontmatter{}, diags
	}
	return frontmatter{description: fields["description"].Value, json: b}, diags
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// frontmatterText is the YAML between the opening --- line and the next
// --- line.
func frontmatterText(src []byte) ([]byte, bool) { return skillmd.Text(src) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
