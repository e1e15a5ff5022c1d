package hcl

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// The catalog is every tool known at generate time, by exposed name.

// checkReserved applies the runtime's one rule for its own tool names
// (runtime.IsReservedToolName) to declared tools, and refuses a server all
// of whose exposed names would fall under it. Locked server tools are
// checked one by one in buildCatalog.
func (r *resolver) checkReserved() {
	for _, t := range r.cfg.tools {
		if decl.IsReservedToolName(t.Name) {
			r.errorf(t.NameRange, t.DeclRange, "Reserved tool name", "The tool name %q is taken by the toolgen runtime's own tools (discovery, meta, coordination, router and output tools, and agent__ followed by any name, whatever the separator), so the runtime would never call this tool. Pick another name.", t.Name)
		}
	}
	for _, s := range r.cfg.servers {
		if reservedServer(s.Name, r.sep) {
			example := decl.ExposedName(s.Name, r.sep, "TOOL")
			r.errorf(s.NameRange, s.DeclRange, "Reserved server name", "Server %q would expose its tools as %s, a name the toolgen runtime keeps for its own tools whatever the tool, so none of them could be called. Pick another server name.", s.Name, example)
		}
	}
}

// reservedServer reports whether every tool a server could expose would
// take a runtime name. The rule reserves a few fixed names and a prefix,
// so a server whose exposed names are reserved for two unrelated tool
// names is covered by the prefix.
func reservedServer(server, sep string) bool {
	for _, probe := range []string{"x", "y"} {
		if !decl.IsReservedToolName(decl.ExposedName(server, sep, probe)) {
			return false
		}
	}
	return true
}

// buildCatalog collects declared tools and locked server tools by exposed
// name and reports names that collide once namespaced and sanitised.
func (r *resolver) buildCatalog(spec *ir.Spec) {
	r.catalog = map[string]*catalogEntry{}
	addEntry := func(e *catalogEntry) {
		if prev := r.catalog[e.tool.Name]; prev != nil {
			r.errorf(e.rng, e.rng, "Exposed name collision", "The exposed tool name %q of %s is already taken by %s. Rename one of them, or filter the server tool out with deny_tools.", e.tool.Name, e.origin, prev.origin)
			return
		}
		r.catalog[e.tool.Name] = e
	}
	for _, t := range r.cfg.tools {
		if r.tools[t.Name] != t {
			continue // a duplicate, already reported
		}
		addEntry(&catalogEntry{
			tool: &ir.CatalogTool{
				Name: t.Name, Description: t.Description, Kind: toolKind(t),
				Category: t.Category, Keywords: t.Keywords, Params: search.SchemaParams(t.InputSchema),
			},
			origin: fmt.Sprintf("tool %q declared at %s", t.Name, shortPos(t.NameRange)),
			rng:    t.NameRange,
		})
	}
	if r.cfg.lock != nil {
		for _, name := range keys(r.cfg.lock.Servers) {
			s := r.servers[name]
			if s == nil {
				rng := r.lockKeyRange(name)
				r.warnf(rng, rng, "Locked server not declared", "The lock file records server %q, which the spec no longer declares.%s Run toolgen lock to refresh it.", name, didYouMean(name, keys(r.servers)))
				continue
			}
			for _, lt := range r.cfg.lock.Servers[name].Tools {
				if !serverExposes(s, lt.Name) {
					continue
				}
				exposed := decl.ExposedName(s.Name, r.sep, lt.Name)
				if decl.IsReservedToolName(exposed) {
					if reservedServer(s.Name, r.sep) {
						continue // reported once, at the server
					}
					r.errorf(s.NameRange, s.DeclRange, "Reserved tool name", "Server %q lists tool %q (%s), exposed as %q: a name the toolgen runtime provides itself, so the runtime would never call the server's tool. Filter it out with deny_tools, or rename the server.", s.Name, lt.Name, r.cfg.lockFile, exposed)
					continue
				}
				addEntry(&catalogEntry{
					tool: &ir.CatalogTool{
						Name: exposed, Description: lt.Description, Kind: ir.KindMCP,
						Server: s.Name, Original: lt.Name, Params: search.SchemaParams(lt.InputSchema),
					},
					origin:    fmt.Sprintf("tool %q of server %q (%s)", lt.Name, s.Name, r.cfg.lockFile),
					rng:       s.NameRange,
					untrusted: !s.Trusted,
				})
			}
		}
	}
	r.checkAllowedCollisions()
	r.catalogList = keys(r.catalog)
	for _, name := range r.catalogList {
		r.catalogEntries = append(r.catalogEntries, r.catalog[name])
		spec.Catalog = append(spec.Catalog, r.catalog[name].tool)
	}
}

// checkAllowedCollisions reports declared tools that take the exposed name
// of a server tool an allow list names exactly: the server's own
// allow_tools or a bundle's. The server will expose that tool under the
// same name, so the clash is certain without a lock entry; with one, the
// catalog has already reported it.
func (r *resolver) checkAllowedCollisions() {
	reported := map[string]bool{}
	check := func(s *serverBlock, list []str, owner string, ctx hcl.Range) {
		for _, a := range list {
			if decl.IsGlob(a.Val) || !serverExposes(s, a.Val) || r.locked(s.Name, a.Val) {
				continue
			}
			exposed := decl.ExposedName(s.Name, r.sep, a.Val)
			t := r.tools[exposed]
			if t == nil || reported[exposed] {
				continue
			}
			reported[exposed] = true
			r.errorf(a.Range, ctx, "Exposed name collision", "%q in %s is exposed as %q, the name of tool %q declared at %s, so one of them could never be called. Rename the declared tool, or remove %q from the list.", a.Val, owner, exposed, t.Name, shortPos(t.NameRange), a.Val)
		}
	}
	for _, s := range r.cfg.servers {
		if r.servers[s.Name] == s {
			check(s, s.AllowTools, fmt.Sprintf("the allow_tools of server %q", s.Name), s.DeclRange)
		}
	}
	for _, b := range r.cfg.bundles {
		if b.Server == nil || r.bundles[b.Name] != b {
			continue
		}
		if s := r.servers[b.Server.Name]; s != nil {
			check(s, b.AllowTools, fmt.Sprintf("the allow_tools of bundle %q (server %q)", b.Name, s.Name), b.DeclRange)
		}
	}
}

// locked reports whether the lock file records tool for server.
func (r *resolver) locked(server, tool string) bool {
	if r.cfg.lock == nil || r.cfg.lock.Servers[server] == nil {
		return false
	}
	for _, lt := range r.cfg.lock.Servers[server].Tools {
		if lt.Name == tool {
			return true
		}
	}
	return false
}

// lockKeyRange points at "name" in the lock file, or at its start.
func (r *resolver) lockKeyRange(name string) hcl.Range {
	off := bytes.Index(r.cfg.lockSrc, []byte(fmt.Sprintf("%q", name)))
	if off < 0 {
		off = 0
	}
	rng := posRange(r.cfg.lockFile, r.cfg.lockSrc, off)
	if off > 0 {
		end := posRange(r.cfg.lockFile, r.cfg.lockSrc, off+len(name)+2)
		rng.End = end.End
	}
	return rng
}

// serverExposes applies a server's allow and deny lists to one of its tools
// (decl.Filter, the runtime's rule). An allow_tools written empty admits
// nothing.
func serverExposes(s *serverBlock, tool string) bool {
	if s.AllowSet && len(s.AllowTools) == 0 {
		return false
	}
	return s.filter.Permits(tool)
}

func toolKind(t *toolBlock) string {
	switch {
	case t.Policy != nil:
		return ir.KindBuiltin
	case t.REST != nil:
		return ir.KindREST
	case t.Go != nil:
		return ir.KindGo
	}
	return ""
}

// unlockedCouldMatch reports whether pattern might match a tool of a server
// that has no lock entry, whose tool names are unknown until it runs.
// Untrusted servers count only when includeUntrusted is set.
func (r *resolver) unlockedCouldMatch(pattern string, includeUntrusted bool) bool {
	lit := pattern
	if i := strings.IndexAny(pattern, `*?[\`); i >= 0 {
		lit = pattern[:i]
	}
	for _, s := range r.cfg.servers {
		if r.cfg.lock != nil && r.cfg.lock.Servers[s.Name] != nil {
			continue
		}
		if !s.Trusted && !includeUntrusted {
			continue
		}
		prefix := s.Name + r.sep
		if strings.HasPrefix(lit, prefix) || strings.HasPrefix(prefix, lit) {
			return true
		}
	}
	return false
}

// matchCatalog lists the catalog names pattern matches, sorted. Only names
// starting with the pattern's literal prefix can match, and the catalog is
// sorted, so it scans just that run.
// A glob's result is cached and shared: callers must not modify it in
// place (its capacity is its length, so append copies).
func (r *resolver) matchCatalog(pattern string, includeUntrusted bool) []string {
	if !decl.IsGlob(pattern) {
		return r.scanCatalog(pattern, includeUntrusted)
	}
	q := globQuery{pattern, includeUntrusted}
	if m, ok := r.globMatches[q]; ok {
		return m
	}
	m := slices.Clip(r.scanCatalog(pattern, includeUntrusted))
	if r.globMatches == nil {
		r.globMatches = map[globQuery][]string{}
	}
	r.globMatches[q] = m
	return m
}

func (r *resolver) scanCatalog(pattern string, includeUntrusted bool) []string {
	prefix := pattern
	if i := strings.IndexAny(pattern, `*?[\`); i >= 0 {
		prefix = pattern[:i]
	}
	var out []string
	for i := sort.SearchStrings(r.catalogList, prefix); i < len(r.catalogList); i++ {
		name := r.catalogList[i]
		if !strings.HasPrefix(name, prefix) {
			break
		}
		if !includeUntrusted && r.catalogEntries[i].untrusted {
			continue
		}
		if decl.Match(pattern, name) {
			out = append(out, name)
		}
	}
	return out
}
