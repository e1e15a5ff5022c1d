package cmd

import (
	"context"
	"fmt"
	"strings"
	"sync"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// lockSkills collects, while toolgen lock lists each server's tools, the
// skills of the servers that serve the Skills extension: each skill's
// frontmatter digest and its files' digests, as the server lists them (no
// file is read). A changed upstream skill is then drift like a changed tool.
type lockSkills struct {
	mu       sync.Mutex
	byServer map[string][]spechcl.LockSkill
}

// collect lists the skills of a trusted server on its connection.
func (l *lockSkills) collect(ctx context.Context, srv *ir.Server, conn *mcpconn.Conn) error {
	if !srv.Trusted {
		return nil // untrusted servers expose no skills
	}
	list, err := conn.Skills(ctx)
	if err != nil {
		return err
	}
	var skills []spechcl.LockSkill
	for _, sk := range list {
		ls, err := lockSkill(&sk)
		if err != nil {
			return fmt.Errorf("skills/list: %w", err)
		}
		skills = append(skills, ls)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byServer == nil {
		l.byServer = map[string][]spechcl.LockSkill{}
	}
	l.byServer[srv.Name] = skills
	return nil
}

// record puts the listed skills into the lock, for the servers that were
// listed now (a failed server keeps its old entry, skills included).
func (l *lockSkills) record(lock *spechcl.Lock, results []spechcl.LockResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range results {
		if s := lock.Servers[r.Server]; r.Err == nil && s != nil {
			s.Skills = l.byServer[r.Server]
		}
	}
}

// lockSkill is a listed skill as the lock records it: named as the
// runtime names it (frontmatter name, else its directory), files by path
// inside the skill's directory.
func lockSkill(sk *mcpconn.Skill) (spechcl.LockSkill, error) {
	dir := strings.TrimSuffix(sk.URI, mcpconn.SkillFileName)
	name := runtime.UpstreamSkillName(sk)
	ls := spechcl.LockSkill{Name: name, Frontmatter: decl.FrontmatterDigest(sk.Frontmatter)}
	for _, f := range sk.Resources {
		p, ok := strings.CutPrefix(f.URI, dir)
		if !ok || p == "" {
			return ls, fmt.Errorf("skill %q lists %q, outside its directory", name, f.URI)
		}
		ls.Files = append(ls.Files, spechcl.LockSkillFile{Path: p, Digest: strings.ToLower(f.Digest)})
	}
	return ls, nil
}
