package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
)

// Skills of upstream servers (the Skills extension): the trusted servers
// whose prompts an agent sees (used directly or through a direct bundle)
// bring their skills too, cut by the server's allow_skills/deny_skills and
// the agent's tools.allowed, exposed as <server><sep><skill> like prompts,
// at skill://<exposed name>/<path>. Nothing of a skill but its listing is
// fetched until it is loaded; every file is checked against the listing
// (size, digest, SKILL.md's frontmatter) before it reaches the host or the
// model. Against the lock file a changed skill is drift: on_drift = warn
// serves it with a lock.drift event, pin and refuse hold it back (the lock
// keeps digests, not content, so there is no older copy to pin to).

// Event names of upstream skills.
const (
	EventSkillVerifyFailed = event.SkillVerifyFailed // a skill file did not match its listing; not handed on
)

// ErrSkillVerify: an upstream skill file did not match what its server listed.
var ErrSkillVerify = mcpconn.ErrSkillVerify

// skillSource is an Upstream that serves skills.
type skillSource interface {
	Skills(ctx context.Context) ([]mcpconn.Skill, error)
	ReadSkillFile(ctx context.Context, sk *mcpconn.Skill, uri string) ([]byte, string, error)
}

func (u *mcpUpstream) skillSource() skillSource { return u.c }

// upstreamSkills lists the skills the agent's servers serve, as decl
// skills named as agents see them, sorted by name. A server whose list
// cannot be read is skipped with an event.
func (s *Session) upstreamSkills(ctx context.Context, st *agentState, uses []decl.Use) []*decl.Skill {
	var out []*decl.Skill
	for _, name := range s.pool.featureServers(uses) {
		src, err := st.skillSourceOf(ctx, name)
		if err != nil || src == nil {
			continue
		}
		list, err := src.Skills(ctx)
		if err != nil {
			event.Emit(st.log, slog.LevelWarn, event.FeaturesFailed, slog.String("server", name), slog.String("list", "skills"), slog.String("error", err.Error()))
			continue
		}
		srv := s.pool.servers[name]
		var f decl.Filter
		f.Add(srv.AllowSkills, srv.DenySkills)
		for i := range list {
			sk := upstreamSkill(name, s.reg.Sep(), &list[i])
			if sk == nil || !f.Permits(sk.Original) || !agentAdmits(st.agent, decl.Match, sk.Name) {
				continue
			}
			if s.skillHeld(st, srv, sk) {
				continue
			}
			out = append(out, sk)
		}
	}
	slices.SortFunc(out, func(a, b *decl.Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (st *agentState) skillSourceOf(ctx context.Context, server string) (skillSource, error) {
	up, err := st.upstream(ctx, server)
	if err != nil {
		return nil, err
	}
	if ss, ok := up.(interface{ skillSource() skillSource }); ok {
		return ss.skillSource(), nil
	}
	return nil, nil
}

// upstreamSkill is a listed skill as a decl skill: its own name from the
// frontmatter (else its directory), its files by path inside its
// directory. An entry whose files lie outside its directory is dropped.
func upstreamSkill(server, sep string, e *mcpconn.Skill) *decl.Skill {
	dir := strings.TrimSuffix(e.URI, mcpconn.SkillFileName)
	original := UpstreamSkillName(e)
	exposed := decl.ExposedName(server, sep, original)
	sk := &decl.Skill{Name: exposed, Description: frontmatterString(e.Frontmatter, "description"), Frontmatter: e.Frontmatter, Server: server, Original: original}
	for _, f := range e.Resources {
		p, ok := strings.CutPrefix(f.URI, dir)
		if !ok || p == "" || strings.Contains("/"+p+"/", "/../") {
			return nil
		}
		sf := decl.SkillFile{Path: p, Size: f.Size, Digest: f.Digest, Source: f.URI}
		if p == decl.SkillFileName {
			sk.Files = append([]decl.SkillFile{sf}, sk.Files...)
		} else {
			sk.Files = append(sk.Files, sf)
		}
	}
	rest := sk.Files[min(1, len(sk.Files)):]
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Path < rest[j].Path }) // sort, not slices: see search.Build
	return sk
}

// UpstreamSkillName is a listed skill's own name: its frontmatter's name,
// else the last segment of its directory. The lock file records skills by it.
func UpstreamSkillName(e *mcpconn.Skill) string {
	if n := frontmatterString(e.Frontmatter, "name"); n != "" {
		return n
	}
	return path.Base(strings.TrimSuffix(strings.TrimSuffix(e.URI, mcpconn.SkillFileName), "/"))
}

func frontmatterString(raw json.RawMessage, field string) string {
	var m map[string]any
	_ = json.Unmarshal(raw, &m) // mcpconn checked it is an object
	s, _ := m[field].(string)
	return s
}

// skillHeld applies the server's on_drift to a live skill against the
// lock file; a drift is a lock.drift event, once per skill and digest.
func (s *Session) skillHeld(st *agentState, srv *decl.Server, sk *decl.Skill) bool {
	locked := srv.SkillsLocked || len(s.pool.locked[srv.Name]) > 0
	if !locked {
		return false
	}
	mode := srv.DriftMode()
	i := slices.IndexFunc(srv.LockedSkills, func(l decl.LockedSkill) bool { return l.Name == sk.Original })
	var why string
	switch {
	case i < 0 && !srv.SkillsLocked:
		if mode == decl.DriftWarn {
			return false // a lock from before skills were recorded: nothing to compare
		}
		why = "not in the lock file"
	case i < 0:
		why = "not in the lock file"
	default:
		why = skillDrift(&srv.LockedSkills[i], sk)
	}
	if why == "" {
		return false
	}
	held := mode != decl.DriftWarn
	key := "skilldrift\x00" + srv.Name + "\x00" + sk.Original + "\x00" + decl.FrontmatterDigest(sk.Frontmatter) + "\x00" + skillDigests(sk)
	if _, seen := s.pool.warned.LoadOrStore(key, true); seen {
		return held
	}
	attrs := []slog.Attr{slog.String("server", srv.Name), slog.String("skill", sk.Original), slog.String("changed", why), slog.String("on_drift", mode)}
	if held {
		attrs = append(attrs, slog.Any("held", []string{sk.Original}))
	}
	event.Emit(st.log, slog.LevelWarn, EventLockDrift, attrs...)
	return held
}

// skillDrift says how a live skill differs from its locked entry, or "".
func skillDrift(l *decl.LockedSkill, sk *decl.Skill) string {
	if l.Frontmatter != decl.FrontmatterDigest(sk.Frontmatter) {
		return "frontmatter"
	}
	var diffs []string
	for _, lf := range l.Files {
		j := slices.IndexFunc(sk.Files, func(f decl.SkillFile) bool { return f.Path == lf.Path })
		switch {
		case j < 0:
			diffs = append(diffs, lf.Path+" removed")
		case !strings.EqualFold(sk.Files[j].Digest, lf.Digest):
			diffs = append(diffs, lf.Path+" changed")
		}
	}
	for _, f := range sk.Files {
		if !slices.ContainsFunc(l.Files, func(lf decl.LockedSkillFile) bool { return lf.Path == f.Path }) {
			diffs = append(diffs, f.Path+" added")
		}
	}
	return strings.Join(diffs, ", ")
}

func skillDigests(sk *decl.Skill) string {
	var b strings.Builder
	for _, f := range sk.Files {
		b.WriteString(f.Path + "=" + f.Digest + ";")
	}
	return b.String()
}

// readSkillFile is a skill file's verified bytes: a declared skill's from
// the binary, checked against its recorded digest; an upstream skill's
// from its server, checked against the server's listing, which is read
// again so that a skill changed or withdrawn since is not served stale.
func (s *Session) readSkillFile(ctx context.Context, st *agentState, sk *decl.Skill, f *decl.SkillFile) ([]byte, string, error) {
	if sk.Server == "" {
		if err := f.Verify(); err != nil {
			return nil, "", err
		}
		return []byte(f.Data), f.MIMEType, nil
	}
	if st == nil {
		return nil, "", errClosed
	}
	src, err := st.skillSourceOf(ctx, sk.Server)
	if err != nil {
		return nil, "", err
	}
	if src == nil {
		return nil, "", fmt.Errorf("server %q serves no skills", sk.Server)
	}
	list, err := src.Skills(ctx)
	if err != nil {
		return nil, "", err
	}
	for i := range list {
		e := &list[i]
		if _, ok := e.File(f.Source); !ok {
			continue
		}
		if strings.TrimSuffix(e.URI, mcpconn.SkillFileName)+f.Path != f.Source {
			continue
		}
		data, mime, err := src.ReadSkillFile(ctx, e, f.Source)
		if errors.Is(err, mcpconn.ErrSkillVerify) {
			event.Emit(st.log, slog.LevelError, EventSkillVerifyFailed, slog.String("server", sk.Server), slog.String("skill", sk.Original), slog.String("path", f.Path), slog.String("error", err.Error()))
		}
		return data, mime, err
	}
	return nil, "", fmt.Errorf("server %q no longer lists %s", sk.Server, f.Source)
}
