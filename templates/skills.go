package templates

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// SkillsFile holds the declared skills; it is written only when the spec
// declares one or a server block says which of its skills agents see
// (linksSkills), so that only those specs import runtime/skills.
const SkillsFile = "skills_gen.go"

// linksSkills reports whether the agent serves the Skills extension: the
// spec declares a skill, or a server sets allow_skills or deny_skills
// (whose skills hosts then get through skills/list).
func linksSkills(spec *ir.Spec) bool {
	if len(spec.Skills) > 0 {
		return true
	}
	for _, s := range spec.Servers {
		if s.AllowSkills != nil || s.DenySkills != nil {
			return true
		}
	}
	return false
}

const (
	skillsPkg     = "github.com/toolgen-dev/toolgen/runtime/skills"
	skillsVar     = private + "Skills"
	skillDataVar  = private + "SkillData"
	skillDataMark = private + "SkillDataText"
)

// skillValues maps the IR's skills to the runtime's, with each file's
// bytes as its own string (RuntimeRegistry; the emitter slices one packed
// constant instead).
func skillValues(spec *ir.Spec) []decl.Skill {
	var out []decl.Skill
	for _, s := range spec.Skills {
		sk := decl.Skill{Name: s.Name, Description: s.Description, Frontmatter: s.Frontmatter}
		for _, f := range s.Files {
			sk.Files = append(sk.Files, decl.SkillFile{Path: f.Path, Size: f.Size, Digest: f.Digest, MIMEType: f.MIMEType, Data: string(f.Data)})
		}
		out = append(out, sk)
	}
	return out
}

// emitSkills writes skills_gen.go: the skills as a table whose files'
// bytes are slices of one constant, the way protobuf-go keeps a raw
// descriptor as data rather than code. The blank import of runtime/skills
// registers the MCP Skills extension with the runtime.
func emitSkills(spec *ir.Spec, _ *GoTools, source string) ([]byte, error) {
	f := newFile(spec, source)
	f.Anon(skillsPkg)
	var data strings.Builder
	f.Comment(skillsVar + " are the skills the spec declares, read and checked by toolgen; the")
	f.Comment("runtime checks each file against its digest before serving or loading it.")
	f.Var().Id(skillsVar).Op("=").Index().Add(dcl("Skill")).ValuesFunc(func(g *jen.Group) {
		for _, s := range spec.Skills {
			g.Values(jen.Dict{
				jen.Id("Name"):        jen.Lit(s.Name),
				jen.Id("Description"): jen.Lit(s.Description),
				jen.Id("Frontmatter"): jen.Index().Byte().Call(jen.Lit(string(s.Frontmatter))),
				jen.Id("Files"): jen.Index().Add(dcl("SkillFile")).ValuesFunc(func(g *jen.Group) {
					for _, file := range s.Files {
						start := data.Len()
						data.Write(file.Data)
						g.Values(jen.Dict{
							jen.Id("Path"):     jen.Lit(file.Path),
							jen.Id("Size"):     jen.Lit(int(file.Size)),
							jen.Id("Digest"):   jen.Lit(file.Digest),
							jen.Id("MIMEType"): jen.Lit(file.MIMEType),
							jen.Id("Data"):     jen.Id(skillDataVar).Index(jen.Lit(start), jen.Lit(data.Len())),
						})
					}
				}),
			})
		}
	})
	f.Line()
	f.Comment(skillDataVar + " is every skill file's bytes, one after another.")
	f.Const().Id(skillDataVar).Op("=").Id(skillDataMark)
	out, err := render(f)
	if err != nil {
		return nil, err
	}
	if bytes.Count(out, []byte(skillDataMark)) != 1 {
		return nil, fmt.Errorf("the placeholder %s is not in %s once", skillDataMark, SkillsFile)
	}
	return bytes.Replace(out, []byte(skillDataMark), []byte(packedString(data.String())), 1), nil
}

// packedString prints s as a sum of string literals, one per line of text
// (long lines and binary data in pieces of at most 1 KiB), so that a change
// to a skill shows in a diff as the lines that changed.
func packedString(s string) string {
	if s == "" {
		return `""`
	}
	var b strings.Builder
	b.WriteString(`"" +`)
	for s != "" {
		n := strings.IndexByte(s, '\n') + 1
		if n == 0 || n > 1024 {
			n = min(len(s), 1024)
		}
		b.WriteString("\n\t")
		b.WriteString(strconv.Quote(s[:n]))
		s = s[n:]
		if s != "" {
			b.WriteString(" +")
		}
	}
	return b.String()
}
