package hcl

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// resolver checks the decoded blocks against each other and builds the IR.
type resolver struct {
	cfg   *config
	sep   string
	diags hcl.Diagnostics

	queues   map[string]*queueBlock
	servers  map[string]*serverBlock
	policies map[string]*policyBlock
	tools    map[string]*toolBlock
	bundles  map[string]*bundleBlock
	agents   map[string]*agentBlock

	catalog        map[string]*catalogEntry
	catalogList    []string        // sorted exposed names
	catalogEntries []*catalogEntry // in catalogList order
}

// catalogEntry is a catalog tool with where it came from, for diagnostics.
type catalogEntry struct {
	tool      *ir.CatalogTool
	origin    string    // "tool \"x\" declared at F:L" or "server \"s\" (toolgen.lock.json)"
	rng       hcl.Range // where to point at it
	untrusted bool
}

const defaultSeparator = "__"

func resolve(cfg *config) (*ir.Spec, hcl.Diagnostics) {
	r := &resolver{cfg: cfg, sep: defaultSeparator}
	spec := &ir.Spec{Separator: defaultSeparator}
	if t := cfg.toolgen; t != nil {
		spec.Package = t.Package
		if t.Separator != "" {
			spec.Separator, r.sep = t.Separator, t.Separator
		}
	}
	if cfg.defaults != nil {
		spec.Defaults = *cfg.defaults
	} else {
		spec.Defaults = *newDefaults()
	}

	r.queues = index(r, "queue", cfg.queues, func(q *queueBlock) decl { return decl{q.Name, q.NameRange, q.DeclRange} })
	r.servers = index(r, "server", cfg.servers, func(s *serverBlock) decl { return decl{s.Name, s.NameRange, s.DeclRange} })
	r.policies = index(r, "policy", cfg.policies, func(p *policyBlock) decl { return decl{p.Name, p.NameRange, p.Range} })
	r.tools = index(r, "tool", cfg.tools, func(t *toolBlock) decl { return decl{t.Name, t.NameRange, t.DeclRange} })
	r.bundles = index(r, "bundle", cfg.bundles, func(b *bundleBlock) decl { return decl{b.Name, b.NameRange, b.DeclRange} })
	r.agents = index(r, "agent", cfg.agents, func(a *agentBlock) decl { return decl{a.Name, a.NameRange, a.DeclRange} })
	index(r, "workflow", cfg.workflows, func(w *workflowBlock) decl { return decl{w.Name, w.NameRange, w.DeclRange} })

	r.checkReserved()
	r.buildCatalog(spec)
	spec.Queues = r.resolveQueues()
	spec.Servers = r.resolveServers(spec.Defaults)
	spec.Policies = r.resolvePolicies()
	spec.Tools = r.resolveTools()
	spec.Bundles = r.resolveBundles()
	spec.Agents = r.resolveAgents(spec.Defaults)
	spec.Workflows = r.resolveWorkflows()
	r.checkSubagentCycles()
	return spec, r.diags
}

func (r *resolver) add(d *hcl.Diagnostic) { r.diags = append(r.diags, d) }

func (r *resolver) errorf(subject, context hcl.Range, summary, format string, args ...any) {
	r.add(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: subject.Ptr(), Context: context.Ptr()})
}

func (r *resolver) warnf(subject, context hcl.Range, summary, format string, args ...any) {
	r.add(&hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: subject.Ptr(), Context: context.Ptr()})
}

// decl is what index needs to know about a declaration.
type decl struct {
	name      string
	nameRange hcl.Range
	declRange hcl.Range
}

// index maps names to declarations of one kind, reporting names declared
// twice (at the second declaration) and names whose Go identifiers clash.
func index[T any](r *resolver, kind string, items []T, d func(T) decl) map[string]T {
	m := map[string]T{}
	byGo := map[string]decl{}
	for _, it := range items {
		x := d(it)
		if prev, dup := m[x.name]; dup {
			r.add(duplicate(kind, x.name, x.nameRange, d(prev).nameRange, x.declRange))
			continue
		}
		m[x.name] = it
		g := goName(x.name)
		if prev, clash := byGo[g]; clash {
			r.errorf(x.nameRange, x.declRange, "Conflicting Go names", "The %s names %q and %q (at %s) both become the Go identifier %s in generated code; rename one of them.", kind, prev.name, x.name, shortPos(prev.nameRange), g)
			continue
		}
		byGo[g] = x
	}
	return m
}

// lookup resolves a reference, reporting an unknown name with the nearest
// declared one.
func (r *resolver) lookup(rf ref) bool {
	if r.declared(rf.Kind, rf.Name) {
		return true
	}
	names := r.names(rf.Kind)
	detail := fmt.Sprintf("No %s named %q is declared.", rf.Kind, rf.Name)
	if s := didYouMean(rf.Name, names); s != "" {
		detail += s
	} else if k := r.kindNamed(rf.Name, rf.Accepts, rf.Kind); k != "" {
		detail += fmt.Sprintf(" Did you mean %s.%s?", k, rf.Name)
	} else if k := r.kindNamed(rf.Name, refKinds, rf.Kind); k != "" {
		detail += fmt.Sprintf(" There is a %s named %q, but a %s is not accepted here.", k, rf.Name, k)
	}
	r.add(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown " + rf.Kind, Detail: detail, Subject: rf.Range.Ptr()})
	return false
}

// kindNamed returns the first of kinds, other than not, that declares name.
func (r *resolver) kindNamed(name string, kinds []string, not string) string {
	for _, k := range kinds {
		if k != not && r.declared(k, name) {
			return k
		}
	}
	return ""
}

// declared reports whether a kind has a declaration of that name.
func (r *resolver) declared(kind, name string) bool {
	var ok bool
	switch kind {
	case "queue":
		_, ok = r.queues[name]
	case "server":
		_, ok = r.servers[name]
	case "policy":
		_, ok = r.policies[name]
	case "tool":
		_, ok = r.tools[name]
	case "bundle":
		_, ok = r.bundles[name]
	case "agent":
		_, ok = r.agents[name]
	}
	return ok
}

// names lists a kind's declared names, sorted; only needed for suggestions.
func (r *resolver) names(kind string) []string {
	switch kind {
	case "queue":
		return keys(r.queues)
	case "server":
		return keys(r.servers)
	case "policy":
		return keys(r.policies)
	case "tool":
		return keys(r.tools)
	case "bundle":
		return keys(r.bundles)
	case "agent":
		return keys(r.agents)
	}
	return nil
}

func keys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Tools the runtime provides itself; declared names must not take them.
var runtimeTools = []string{
	"list_available_agents", "mcp_call_tool", "mcp_get_tool_schema", "mcp_list_tools", "output_read",
	"spawn_agents", "tool_active", "tool_describe", "tool_find", "tool_load",
}

// Namespaces of runtime tools: agent__<sub-agent>, agent__final_report, router__handoff-to.
var runtimeNamespaces = []string{"agent", "router"}

func (r *resolver) checkReserved() {
	for _, t := range r.cfg.tools {
		reserved := contains(runtimeTools, t.Name)
		for _, ns := range runtimeNamespaces {
			reserved = reserved || strings.HasPrefix(t.Name, ns+r.sep)
		}
		if reserved {
			r.errorf(t.NameRange, t.DeclRange, "Reserved tool name", "The tool name %q is provided by the toolgen runtime (discovery, meta, sub-agent and router tools use %s and the agent%s and router%s prefixes); pick another name.", t.Name, quoteList(runtimeTools), r.sep, r.sep)
		}
	}
	for _, s := range r.cfg.servers {
		if contains(runtimeNamespaces, s.Name) {
			r.errorf(s.NameRange, s.DeclRange, "Reserved server name", "A server named %q would expose tools as %s%s…, the namespace of the runtime's own tools; pick another name.", s.Name, s.Name, r.sep)
		}
	}
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
				Category: t.Category, Keywords: t.Keywords, Params: schemaParams(t.InputSchema),
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
				exposed := sanitizeName(s.Name + r.sep + lt.Name)
				addEntry(&catalogEntry{
					tool: &ir.CatalogTool{
						Name: exposed, Description: lt.Description, Kind: ir.KindMCP,
						Server: s.Name, Original: lt.Name, Params: schemaParams(lt.InputSchema),
					},
					origin:    fmt.Sprintf("tool %q of server %q (%s)", lt.Name, s.Name, r.cfg.lockFile),
					rng:       s.NameRange,
					untrusted: !s.Trusted,
				})
			}
		}
	}
	r.catalogList = keys(r.catalog)
	for _, name := range r.catalogList {
		r.catalogEntries = append(r.catalogEntries, r.catalog[name])
		spec.Catalog = append(spec.Catalog, r.catalog[name].tool)
	}
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

// serverExposes applies a server's allow and deny lists to one of its tools.
func serverExposes(s *serverBlock, tool string) bool {
	return listAllows(s.AllowSet, s.AllowTools, s.DenyTools, tool)
}

func listAllows(allowSet bool, allow, deny []str, tool string) bool {
	ok := !allowSet
	for _, a := range allow {
		ok = ok || globMatch(a.Val, tool)
	}
	for _, d := range deny {
		ok = ok && !globMatch(d.Val, tool)
	}
	return ok
}

// sanitizeName maps a name into the portable set: other characters become
// "_" and the name is cut to 64 bytes.
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
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
func (r *resolver) matchCatalog(pattern string, includeUntrusted bool) []string {
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
		if globMatch(pattern, name) {
			out = append(out, name)
		}
	}
	return out
}

func (r *resolver) resolveQueues() []*ir.Queue {
	var out []*ir.Queue
	for _, name := range keys(r.queues) {
		q := r.queues[name]
		out = append(out, &ir.Queue{Name: q.Name, GoName: goName(q.Name), Concurrent: q.Concurrent, Range: q.DeclRange})
	}
	return out
}

func (r *resolver) resolveServers(defaults ir.Defaults) []*ir.Server {
	var out []*ir.Server
	for _, name := range keys(r.servers) {
		s := r.servers[name]
		srv := &ir.Server{
			Name: s.Name, GoName: goName(s.Name), Transport: s.Transport,
			Command: s.Command, Args: s.Args, Env: irKeyValues(s.Env), Address: s.Address,
			Headers: irKeyValues(s.Headers), Trusted: s.Trusted,
			AllowTools: sortedStrs(s.AllowTools), DenyTools: sortedStrs(s.DenyTools),
			Timeout: s.Timeout, Cache: s.Cache, StartupTimeout: s.StartupTimeout,
			ProtocolVersion: s.ProtocolVersion, HealthCheck: s.HealthCheck, Range: s.DeclRange,
		}
		if s.URL != nil {
			srv.URL = *s.URL
		}
		if srv.Timeout == 0 {
			srv.Timeout = defaults.ToolTimeout
		}
		if srv.StartupTimeout == 0 {
			srv.StartupTimeout = defaults.StartupTimeout
		}
		if s.Queue != nil && r.lookup(*s.Queue) {
			srv.Queue = s.Queue.Name
		}
		if r.cfg.lock != nil && r.cfg.lock.Servers[s.Name] != nil {
			locked := r.cfg.lock.Servers[s.Name].Tools
			srv.Locked = []*ir.LockedTool{}
			var raw []string
			for _, lt := range locked {
				srv.Locked = append(srv.Locked, &ir.LockedTool{Name: lt.Name, Description: lt.Description, InputSchema: lt.InputSchema, Hash: lt.Hash})
				raw = append(raw, lt.Name)
			}
			r.checkListAgainst(s.AllowTools, raw, "allow_tools", s.Name, s.DeclRange)
		}
		out = append(out, srv)
	}
	return out
}

// checkListAgainst warns about allow_tools entries that match none of a
// locked server's tools.
func (r *resolver) checkListAgainst(list []str, names []string, attr, server string, ctx hcl.Range) {
	for _, p := range list {
		hit := false
		for _, n := range names {
			hit = hit || globMatch(p.Val, n)
		}
		if !hit {
			r.warnf(p.Range, ctx, "No matching tool", "%q in %s matches none of the tools server %q had when toolgen lock ran.%s The server may add it later; run toolgen lock to refresh.", p.Val, attr, server, didYouMean(p.Val, names))
		}
	}
}

func sortedStrs(list []str) []string {
	out := strVals(list)
	sort.Strings(out)
	return out
}

func (r *resolver) resolvePolicies() []*ir.Policy {
	var out []*ir.Policy
	for _, name := range keys(r.policies) {
		p := r.policies[name].Policy
		out = append(out, &p)
	}
	return out
}

func (r *resolver) resolveTools() []*ir.Tool {
	renamed := map[string]str{}
	var out []*ir.Tool
	for _, name := range keys(r.tools) {
		t := r.tools[name]
		tool := &ir.Tool{
			Name: t.Name, GoName: goName(t.Name), Description: t.Description, Kind: toolKind(t),
			REST: t.REST, Go: t.Go, InputSchema: t.InputSchema, Category: t.Category,
			Keywords: t.Keywords, Timeout: t.Timeout, Range: t.DeclRange,
		}
		if t.Policy != nil && r.lookup(*t.Policy) {
			tool.Policy = t.Policy.Name
		}
		if t.Queue != nil && r.lookup(*t.Queue) {
			tool.Queue = t.Queue.Name
		}
		for _, old := range t.RenamedFrom {
			if live := r.catalog[old.Val]; live != nil {
				r.errorf(old.Range, t.DeclRange, "Renamed name still in use", "renamed_from lists names that no longer exist, but %q is %s.", old.Val, live.origin)
				continue
			}
			if prev, dup := renamed[old.Val]; dup {
				r.errorf(old.Range, t.DeclRange, "Duplicate renamed_from", "%q is already listed in renamed_from at %s; an old name can lead to one tool only.", old.Val, shortPos(prev.Range))
				continue
			}
			renamed[old.Val] = old
			tool.RenamedFrom = append(tool.RenamedFrom, old.Val)
		}
		sort.Strings(tool.RenamedFrom)
		out = append(out, tool)
	}
	return out
}

func (r *resolver) resolveBundles() []*ir.Bundle {
	var out []*ir.Bundle
	for _, name := range keys(r.bundles) {
		b := r.bundles[name]
		bundle := &ir.Bundle{
			Name: b.Name, GoName: goName(b.Name), Mode: b.Mode,
			AllowTools: sortedStrs(b.AllowTools), DenyTools: sortedStrs(b.DenyTools), Range: b.DeclRange,
		}
		if b.Server != nil && r.lookup(*b.Server) {
			s := r.servers[b.Server.Name]
			bundle.Server = s.Name
			if !s.Trusted && b.Mode == ir.ModeDirect {
				subject := b.Server.Range
				if b.ModeRange != b.DeclRange {
					subject = b.ModeRange
				}
				r.errorf(subject, b.DeclRange, "Untrusted server in direct bundle", "Server %q is untrusted, so its tools are never exposed directly; set mode = \"meta\" on bundle %q to reach them through mcp_list_tools and mcp_call_tool.", s.Name, b.Name)
			}
			if r.cfg.lock != nil && r.cfg.lock.Servers[s.Name] != nil {
				var raw []string
				for _, lt := range r.cfg.lock.Servers[s.Name].Tools {
					if serverExposes(s, lt.Name) {
						raw = append(raw, lt.Name)
					}
				}
				r.checkListAgainst(b.AllowTools, raw, "allow_tools", s.Name, b.DeclRange)
			}
		}
		for _, t := range b.Tools {
			if r.lookup(t) {
				bundle.Tools = append(bundle.Tools, t.Name)
			}
		}
		sort.Strings(bundle.Tools)
		out = append(out, bundle)
	}
	return out
}

// runtimeNames are the tools the runtime adds to an agent's surface.
func (r *resolver) runtimeNames(a *agentBlock) []string {
	names := []string{"output_read", "agent" + r.sep + "final_report", "agent" + r.sep + "task_status", "agent" + r.sep + "batch"}
	for _, s := range a.Subagents {
		names = append(names, "agent"+r.sep+s.Name)
	}
	if a.RouterSet {
		names = append(names, "router"+r.sep+"handoff-to")
	}
	if a.Spawn {
		names = append(names, "spawn_agents", "list_available_agents")
	}
	if a.Discovery {
		names = append(names, "tool_find", "tool_describe", "tool_load", "tool_active")
	}
	for _, u := range a.Use {
		if u.Ref != nil && u.Ref.Kind == "bundle" {
			if b := r.bundles[u.Ref.Name]; b != nil && b.Mode == ir.ModeMeta {
				names = append(names, "mcp_list_tools", "mcp_get_tool_schema", "mcp_call_tool")
				break
			}
		}
	}
	sort.Strings(names)
	return names
}

func (r *resolver) resolveAgents(defaults ir.Defaults) []*ir.Agent {
	var out []*ir.Agent
	for _, name := range keys(r.agents) {
		a := r.agents[name]
		agent := &ir.Agent{
			Name: a.Name, GoName: goName(a.Name), Description: a.Description,
			Discovery: a.Discovery, Spawn: a.Spawn, MaxDepth: defaults.MaxDepth, AllowedSet: a.AllowedSet, Range: a.DeclRange,
		}
		if a.MaxDepth != nil {
			agent.MaxDepth = *a.MaxDepth
		}
		rt := r.runtimeNames(a)
		aliases := r.resolveAliases(a, rt)
		agent.Aliases = aliases

		for _, u := range a.Use {
			if u.Ref != nil {
				if !r.lookup(*u.Ref) {
					continue
				}
				if u.Ref.Kind == "server" && !r.servers[u.Ref.Name].Trusted {
					r.errorf(u.Ref.Range, a.ToolsRange, "Untrusted server used directly", "Server %q is untrusted, so an agent cannot use its tools directly; put it in a bundle with mode = \"meta\" and use that bundle.", u.Ref.Name)
				}
				agent.Use = append(agent.Use, ir.UseEntry{Kind: u.Ref.Kind, Name: u.Ref.Name, Range: u.Range})
				continue
			}
			matches := r.matchCatalog(u.Str.Val, false)
			if len(matches) == 0 && !r.unlockedCouldMatch(u.Str.Val, false) {
				r.warnf(u.Range, a.ToolsRange, "No matching tool", "%q in use matches no known tool.%s Tools of servers without a lock entry are known only after toolgen lock runs.", u.Str.Val, didYouMean(u.Str.Val, r.catalogList))
			}
			agent.Use = append(agent.Use, ir.UseEntry{Kind: ir.UseGlob, Name: u.Str.Val, Matches: matches, Range: u.Range})
		}

		if a.AllowedSet {
			agent.Allowed = []ir.AllowEntry{}
			for _, al := range a.Allowed {
				pattern := al.Str.Val
				if al.Ref != nil {
					if !r.lookup(*al.Ref) {
						continue
					}
					pattern = al.Ref.Name
				}
				entry := ir.AllowEntry{Pattern: pattern, IsGlob: al.Ref == nil && isGlob(pattern), Range: al.Range}
				matches := r.matchCatalog(pattern, true) // sorted
				known := len(matches) > 0
				for _, alias := range aliases {
					if globMatch(pattern, alias.Name) {
						known = true
						if r.catalog[alias.Target] != nil {
							if i, found := slices.BinarySearch(matches, alias.Target); !found {
								matches = slices.Insert(matches, i, alias.Target)
							}
						}
					}
				}
				for _, n := range rt {
					known = known || globMatch(pattern, n)
				}
				entry.Matches = matches
				if !known && !r.unlockedCouldMatch(pattern, true) {
					cands := append(append([]string{}, r.catalogList...), rt...)
					for _, alias := range aliases {
						cands = append(cands, alias.Name)
					}
					r.warnf(al.Range, a.ToolsRange, "No matching tool", "%q in allowed matches no known tool, alias or runtime tool of agent %q.%s", pattern, a.Name, didYouMean(pattern, cands))
				}
				agent.Allowed = append(agent.Allowed, entry)
			}
		}

		for _, s := range a.Subagents {
			if !r.lookup(s) {
				continue
			}
			if exposed := "agent" + r.sep + s.Name; len(exposed) > 64 {
				r.errorf(s.Range, a.DeclRange, "Invalid name", "The sub-agent tool name %q is longer than 64 characters; shorten the agent name.", exposed)
			}
			agent.Subagents = appendUnique(agent.Subagents, s.Name)
		}
		sort.Strings(agent.Subagents)
		for _, d := range a.Router {
			if !r.lookup(d) {
				continue
			}
			if d.Name == a.Name {
				r.errorf(d.Range, a.DeclRange, "Invalid router destination", "Agent %q cannot hand off to itself; list other agents in router.destinations.", a.Name)
				continue
			}
			agent.Router = appendUnique(agent.Router, d.Name)
		}
		sort.Strings(agent.Router)
		out = append(out, agent)
	}
	return out
}

func appendUnique(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

// resolveAliases checks an agent's aliases and resolves chains to their
// final target.
func (r *resolver) resolveAliases(a *agentBlock, runtimeNames []string) []ir.Alias {
	targets := map[string]aliasEntry{}
	for _, al := range a.Aliases {
		targets[al.Name] = al
	}
	var out []ir.Alias
	for _, name := range keys(targets) {
		al := targets[name]
		if live := r.catalog[al.Name]; live != nil {
			r.errorf(al.NameRange, a.ToolsRange, "Alias shadows tool", "The alias %q has the name of %s; a call to it would be ambiguous. Pick another alias name.", al.Name, live.origin)
			continue
		}
		if contains(runtimeNames, al.Name) {
			r.errorf(al.NameRange, a.ToolsRange, "Alias shadows tool", "The alias %q has the name of a tool the runtime gives agent %q; pick another alias name.", al.Name, a.Name)
			continue
		}
		// Follow the chain; a name seen twice closes a cycle.
		chain := []string{al.Name}
		cur := al.Target
		cycle := false
		for {
			next, isAlias := targets[cur]
			if !isAlias {
				break
			}
			if contains(chain, cur) {
				cycle = true
				chain = append(chain, cur)
				break
			}
			chain = append(chain, cur)
			cur = next.Target
		}
		if cycle {
			// Report each cycle once, at its alphabetically first member.
			start := chain[len(chain)-1]
			members := chain[indexOf(chain, start) : len(chain)-1]
			if name == start && slicesMin(members) == name {
				r.errorf(al.TargetRange, a.ToolsRange, "Alias cycle", "The aliases of agent %q form a cycle: %s. An alias must lead to a tool.", a.Name, strings.Join(chain[indexOf(chain, start):], " → "))
			}
			continue
		}
		if r.catalog[cur] == nil && !contains(runtimeNames, cur) && !r.unlockedCouldMatch(cur, false) {
			cands := append(append([]string{}, r.catalogList...), runtimeNames...)
			r.errorf(al.TargetRange, a.ToolsRange, "Unknown alias target", "The alias %q leads to %q, which is not a known tool.%s", al.Name, cur, didYouMean(cur, cands))
			continue
		}
		out = append(out, ir.Alias{Name: al.Name, Target: cur, Range: al.NameRange})
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func slicesMin(list []string) string {
	m := list[0]
	for _, s := range list[1:] {
		if s < m {
			m = s
		}
	}
	return m
}

func (r *resolver) resolveWorkflows() []*ir.Workflow {
	var out []*ir.Workflow
	seen := map[string]bool{}
	for _, w := range r.cfg.workflows {
		if seen[w.Name] {
			continue
		}
		seen[w.Name] = true
		wf := &ir.Workflow{Name: w.Name, GoName: goName(w.Name), Range: w.DeclRange}
		for _, rb := range w.Roles {
			role := &ir.Role{Name: rb.Name, Range: rb.DeclRange}
			for _, sb := range rb.Steps {
				step := &ir.Step{Name: sb.Name, Range: sb.DeclRange}
				for _, b := range sb.Bundles {
					if r.lookup(b) {
						step.Bundles = appendUnique(step.Bundles, b.Name)
					}
				}
				sort.Strings(step.Bundles)
				role.Steps = append(role.Steps, step)
			}
			sortBy(role.Steps, func(s *ir.Step) string { return s.Name })
			wf.Roles = append(wf.Roles, role)
		}
		sortBy(wf.Roles, func(r *ir.Role) string { return r.Name })
		out = append(out, wf)
	}
	sortBy(out, func(w *ir.Workflow) string { return w.Name })
	return out
}

// checkSubagentCycles reports each cycle of sub-agent references once, at
// the reference that closes it.
func (r *resolver) checkSubagentCycles() {
	const (
		unvisited = iota
		visiting
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(name string)
	visit = func(name string) {
		state[name] = visiting
		stack = append(stack, name)
		a := r.agents[name]
		for _, s := range a.Subagents {
			if r.agents[s.Name] == nil {
				continue
			}
			switch state[s.Name] {
			case unvisited:
				visit(s.Name)
			case visiting:
				cycle := append(append([]string{}, stack[indexOf(stack, s.Name):]...), s.Name)
				r.errorf(s.Range, a.DeclRange, "Sub-agent cycle", "Agent %q can reach itself through sub-agents: %s. A sub-agent tree must not loop.", s.Name, strings.Join(cycle, " → "))
			}
		}
		stack = stack[:len(stack)-1]
		state[name] = done
	}
	for _, name := range keys(r.agents) {
		if state[name] == unvisited {
			visit(name)
		}
	}
}
