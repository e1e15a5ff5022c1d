package hcl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// LockDiff describes, for a person reading CI output, how the servers'
// tools today (now) differ from the lock file (was): one line per server,
// tool or field, "+" for what appeared, "-" for what went away. It is
// empty when both hold the same. Either lock may be nil.
func LockDiff(was, now *Lock) string {
	var b strings.Builder
	for _, name := range lockServerNames(was, now) {
		ws, ns := lockServer(was, name), lockServer(now, name)
		switch {
		case ws == nil:
			fmt.Fprintf(&b, "+ server %s: not in the lock file (%d tools)\n", name, len(ns.Tools))
			continue
		case ns == nil:
			fmt.Fprintf(&b, "- server %s: in the lock file, no longer listed\n", name)
			continue
		}
		var lines []string
		wt, nt := lockToolsByName(ws), lockToolsByName(ns)
		for _, tool := range unionKeys(wt, nt) {
			w, n := wt[tool], nt[tool]
			switch {
			case w == nil:
				lines = append(lines, fmt.Sprintf("  + tool %s: %s", tool, oneLine(n.Description)))
			case n == nil:
				lines = append(lines, fmt.Sprintf("  - tool %s", tool))
			default:
				if fields := lockToolChanges(w, n); len(fields) > 0 {
					lines = append(lines, "  ~ tool "+tool)
					lines = append(lines, fields...)
				}
			}
		}
		lines = append(lines, lockSkillChanges(ws.Skills, ns.Skills)...)
		if len(lines) > 0 {
			fmt.Fprintf(&b, "server %s:\n%s\n", name, strings.Join(lines, "\n"))
		}
	}
	return b.String()
}

// lockToolChanges lists the fields of one tool that changed, old then new.
func lockToolChanges(w, n *LockTool) []string {
	var out []string
	field := func(name, old, cur string) {
		if old != cur {
			out = append(out, fmt.Sprintf("      %s:\n        - %s\n        + %s", name, old, cur))
		}
	}
	field("title", strconv.Quote(w.Title), strconv.Quote(n.Title))
	field("description", strconv.Quote(w.Description), strconv.Quote(n.Description))
	for _, f := range []struct {
		name     string
		old, cur json.RawMessage
	}{{"inputSchema", w.InputSchema, n.InputSchema}, {"outputSchema", w.OutputSchema, n.OutputSchema}, {"annotations", w.Annotations, n.Annotations}, {"_meta", w.Meta, n.Meta}} {
		field(f.name, compactJSON(f.old), compactJSON(f.cur))
	}
	return out
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(none)"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// oneLine is a description cut to its first line, for a tool that appeared.
func oneLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	if cut {
		s += " …"
	}
	return fmt.Sprintf("%q", s)
}

func lockServer(l *Lock, name string) *LockServer {
	if l == nil {
		return nil
	}
	return l.Servers[name]
}

func lockServerNames(was, now *Lock) []string {
	seen := map[string]bool{}
	for _, l := range []*Lock{was, now} {
		if l != nil {
			for name := range l.Servers {
				seen[name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func lockToolsByName(s *LockServer) map[string]*LockTool {
	out := make(map[string]*LockTool, len(s.Tools))
	for i := range s.Tools {
		out[s.Tools[i].Name] = &s.Tools[i]
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// lockSkillChanges lists the skills added, removed or changed (frontmatter,
// files added, removed or with another digest).
func lockSkillChanges(was, now []LockSkill) []string {
	ws, ns := map[string]*LockSkill{}, map[string]*LockSkill{}
	for i := range was {
		ws[was[i].Name] = &was[i]
	}
	for i := range now {
		ns[now[i].Name] = &now[i]
	}
	var out []string
	for _, name := range unionKeys(ws, ns) {
		w, n := ws[name], ns[name]
		switch {
		case w == nil:
			out = append(out, fmt.Sprintf("  + skill %s: %d files", name, len(n.Files)))
		case n == nil:
			out = append(out, "  - skill "+name)
		default:
			var fields []string
			if w.Frontmatter != n.Frontmatter {
				fields = append(fields, fmt.Sprintf("      frontmatter:\n        - %s\n        + %s", w.Frontmatter, n.Frontmatter))
			}
			wf, nf := map[string]string{}, map[string]string{}
			for _, f := range w.Files {
				wf[f.Path] = f.Digest
			}
			for _, f := range n.Files {
				nf[f.Path] = f.Digest
			}
			for _, p := range unionKeys(wf, nf) {
				old, inW := wf[p]
				cur, inN := nf[p]
				switch {
				case !inW:
					fields = append(fields, fmt.Sprintf("      + file %s: %s", p, cur))
				case !inN:
					fields = append(fields, "      - file "+p)
				case old != cur:
					fields = append(fields, fmt.Sprintf("      file %s:\n        - %s\n        + %s", p, old, cur))
				}
			}
			if len(fields) > 0 {
				out = append(out, "  ~ skill "+name)
				out = append(out, fields...)
			}
		}
	}
	return out
}
