package hcl

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/filekind"
)

// Limits on a skill, those SEP-2640 asks servers to keep to: at most
// maxSkillFiles files (SKILL.md included) and maxSkillBytes in all. Each
// file is also at most maxSpecFileBytes, like any file toolgen reads.
const (
	maxSkillFiles = 512
	maxSkillBytes = 16 << 20
)

// readSkills reads each declared skill's directory through fsys, with the
// rules of spec files (regular files only, inside the spec directory,
// bounded), and checks its SKILL.md.
func readSkills(dir string, fsys fs.FS, skills []*skillBlock) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, s := range skills {
		if !validSkillName(s.Name) || s.Dir == "" {
			continue // reported at its label or dir; no directory to look for
		}
		sk, d := readSkill(dir, fsys, s)
		diags = append(diags, d...)
		if !d.HasErrors() {
			s.Skill = sk
		}
	}
	return diags
}

func readSkill(dir string, fsys fs.FS, s *skillBlock) (*ir.Skill, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	errAt := func(summary, detail string) hcl.Diagnostics {
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: s.DirRange.Ptr(), Context: s.DeclRange.Ptr()})
	}
	info, err := fs.Stat(fsys, s.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errAt("Skill directory not found", fmt.Sprintf("Skill %q reads the directory %s, which does not exist. Create it with a SKILL.md, or set dir to where the skill is.", s.Name, displayName(dir, s.Dir)))
	case isEscape(err):
		return nil, errAt("Cannot read skill directory", fmt.Sprintf("%s leads out of the spec directory through a symlink; toolgen reads only files inside it.", displayName(dir, s.Dir)))
	case err != nil:
		return nil, errAt("Cannot read skill directory", fmt.Sprintf("Reading %s: %s.", displayName(dir, s.Dir), unwrapPathErr(err)))
	case !info.IsDir():
		return nil, errAt("Not a directory", fmt.Sprintf("Skill %q reads %s, which is %s; a skill is a directory with a SKILL.md.", s.Name, displayName(dir, s.Dir), filekind.Of(info.Mode())))
	}
	sk := &ir.Skill{Name: s.Name, GoName: ir.GoName(s.Name), Dir: s.Dir, Range: s.DeclRange}
	var total int64
	walkErr := fs.WalkDir(fsys, s.Dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			diags = errAt("Cannot read skill directory", fmt.Sprintf("Reading %s: %s.", displayName(dir, p), unwrapPathErr(err)))
			return fs.SkipAll
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, s.Dir), "/")
		if base := path.Base(p); rel != "" && (strings.HasPrefix(base, ".") || strings.HasSuffix(base, "~")) {
			// editor and system leftovers (.DS_Store, .git, foo~), as for spec files
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		if len(sk.Files) == maxSkillFiles {
			diags = errAt("Skill too large", fmt.Sprintf("Skill %q has more than %d files; SEP-2640 asks servers not to serve more. Move what the skill does not need out of %s.", s.Name, maxSkillFiles, displayName(dir, s.Dir)))
			return fs.SkipAll
		}
		b, err := readRegular(fsys, p, maxSpecFileBytes)
		if err != nil {
			summary, detail := fileProblem("Skill file", displayName(dir, p), err)
			diags = errAt(summary, detail)
			return nil
		}
		total += int64(len(b))
		sum := sha256.Sum256(b)
		sk.Files = append(sk.Files, &ir.SkillFile{Path: rel, Size: int64(len(b)), Digest: "sha256:" + hex.EncodeToString(sum[:]), MIMEType: skillMIMEType(rel, b), Data: b})
		return nil
	})
	if walkErr != nil {
		return nil, errAt("Cannot read skill directory", fmt.Sprintf("Reading %s: %s.", displayName(dir, s.Dir), unwrapPathErr(walkErr)))
	}
	if total > maxSkillBytes {
		diags = errAt("Skill too large", fmt.Sprintf("The files of skill %q add up to %d bytes, more than the 16 MiB SEP-2640 asks servers not to exceed.", s.Name, total))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	// SKILL.md first: it is the skill's own URI and what a host reads first.
	i := -1
	for j, f := range sk.Files {
		if f.Path == skillFileName {
			i = j
		}
	}
	if i < 0 {
		return nil, errAt("Missing SKILL.md", fmt.Sprintf("Skill %q has no %s at the top of %s; every skill starts from one, with YAML frontmatter naming and describing it.", s.Name, skillFileName, displayName(dir, s.Dir)))
	}
	md := sk.Files[i]
	sk.Files = append(append([]*ir.SkillFile{md}, sk.Files[:i]...), sk.Files[i+1:]...)
	fm, d := checkFrontmatter(displayName(dir, path.Join(s.Dir, skillFileName)), md.Data, s.Name)
	if d.HasErrors() {
		return nil, d
	}
	sk.Description, sk.Frontmatter = fm.description, fm.json
	return sk, d
}

const skillFileName = "SKILL.md"

// skillMIMEType is a file's media type from a fixed table, so that the
// generated code does not depend on the machine's mime.types.
func skillMIMEType(name string, b []byte) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown":
		return "text/markdown"
	case ".txt":
		return "text/plain"
	case ".json":
		return "application/json"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".html", ".htm":
		return "text/html"
	case ".csv":
		return "text/csv"
	case ".py":
		return "text/x-python"
	case ".sh":
		return "text/x-shellscript"
	case ".js", ".mjs":
		return "text/javascript"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".svg":
		return "image/svg+xml"
	case ".pdf":
		return "application/pdf"
	}
	if utf8.Valid(b) {
		return "text/plain"
	}
	return "application/octet-stream"
}
