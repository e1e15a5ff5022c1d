package hcl

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// resolver checks the decoded blocks against each other and builds the IR.
type resolver struct {
	cfg   *config
	sep   string
	diags hcl.Diagnostics

	queues    map[string]*queueBlock
	servers   map[string]*serverBlock
	policies  map[string]*policyBlock
	tools     map[string]*toolBlock
	bundles   map[string]*bundleBlock
	agents    map[string]*agentBlock
	models    map[string]*modelBlock
	prompts   map[string]*promptBlock
	resources map[string]*resourceBlock
	skills    map[string]*skillBlock
	sets      map[string]nameSet // each indexed kind's names, for references

	catalog        map[string]*catalogEntry
	catalogList    []string        // sorted exposed names
	catalogEntries []*catalogEntry // in catalogList order

	// globMatches caches matchCatalog for glob patterns: a thousand agents
	// often share a few, each matching thousands of tools.
	globMatches map[globQuery][]string
}

type globQuery struct {
	pattern          string
	includeUntrusted bool
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
	r := &resolver{cfg: cfg, sep: defaultSeparator, sets: map[string]nameSet{}}
	spec := &ir.Spec{Separator: defaultSeparator}
	if t := cfg.toolgen; t != nil {
		spec.Package = t.Package
		spec.Telemetry = t.Telemetry
		spec.Store = t.Store
		if t.Separator != "" {
			spec.Separator, r.sep = t.Separator, t.Separator
		}
	}
	if cfg.defaults != nil {
		spec.Defaults = *cfg.defaults
	} else {
		spec.Defaults = *newDefaults()
	}

	r.queues = index(r, "queue", cfg.queues, func(q *queueBlock) declared { return declared{q.Name, q.NameRange, q.DeclRange} })
	r.servers = index(r, "server", cfg.servers, func(s *serverBlock) declared { return declared{s.Name, s.NameRange, s.DeclRange} })
	r.policies = index(r, "policy", cfg.policies, func(p *policyBlock) declared { return declared{p.Name, p.NameRange, p.Range} })
	r.tools = index(r, "tool", cfg.tools, func(t *toolBlock) declared { return declared{t.Name, t.NameRange, t.DeclRange} })
	r.bundles = index(r, "bundle", cfg.bundles, func(b *bundleBlock) declared { return declared{b.Name, b.NameRange, b.DeclRange} })
	r.agents = index(r, "agent", cfg.agents, func(a *agentBlock) declared { return declared{a.Name, a.NameRange, a.DeclRange} })
	r.models = index(r, "model", cfg.models, func(m *modelBlock) declared { return declared{m.Name, m.NameRange, m.DeclRange} })
	r.prompts = index(r, "prompt", cfg.prompts, func(p *promptBlock) declared { return declared{p.Name, p.NameRange, p.DeclRange} })
	r.resources = index(r, "resource", cfg.resources, func(x *resourceBlock) declared { return declared{x.Name, x.NameRange, x.DeclRange} })
	r.skills = index(r, "skill", cfg.skills, func(s *skillBlock) declared { return declared{s.Name, s.NameRange, s.DeclRange} })
	index(r, "workflow", cfg.workflows, func(w *workflowBlock) declared { return declared{w.Name, w.NameRange, w.DeclRange} })

	r.checkReserved()
	r.buildCatalog(spec)
	spec.Queues = r.resolveQueues()
	spec.Servers = r.resolveServers(spec.Defaults)
	spec.Policies = r.resolvePolicies()
	spec.Tools = r.resolveTools()
	spec.Bundles = r.resolveBundles()
	spec.Models = r.resolveModels()
	spec.Enrich = r.resolveEnrich()
	spec.Defaults.Model = r.resolveDefaultModel()
	spec.Agents = r.resolveAgents(spec.Defaults)
	r.resolveAgentModels(spec.Agents, spec.Defaults.Model)
	spec.Workflows = r.resolveWorkflows()
	spec.Prompts = r.resolvePrompts()
	spec.Resources = r.resolveResources()
	spec.Skills = r.resolveSkills()
	r.checkSubagentCycles()
	r.warnUnexplained()
	return spec, r.diags
}

// warnUnexplained warns about what passes validation but serves nobody
// well: a tool a model cannot choose (no description) and a spec with
// nothing to serve (no agent). A spec with errors gets only those.
func (r *resolver) warnUnexplained() {
	if r.diags.HasErrors() {
		return
	}
	for _, t := range r.cfg.tools {
		if strings.TrimSpace(t.Description) == "" {
			r.warnf(t.NameRange, t.DeclRange, "Tool without a description",
				"A model chooses tools by their descriptions, and tool_find searches them: tool %q has none. Say what it does and when to use it, e.g. description = \"Read a UTF-8 text file from the notes directory.\"", t.Name)
		}
	}
	if len(r.cfg.agents) == 0 && len(r.cfg.tools)+len(r.cfg.servers) > 0 {
		first := hcl.Range{}
		switch {
		case len(r.cfg.tools) > 0:
			first = r.cfg.tools[0].DeclRange
		default:
			first = r.cfg.servers[0].DeclRange
		}
		r.warnf(first, first, "No agent",
			"The spec declares tools but no agent, so the generated code serves nothing. Add one that uses them, e.g. agent \"assistant\" { tools { use = [tool.NAME] } }.")
	}
}

func (r *resolver) add(d *hcl.Diagnostic) { r.diags = append(r.diags, d) }

func (r *resolver) errorf(subject, context hcl.Range, summary, format string, args ...any) {
	r.add(&hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: subject.Ptr(), Context: context.Ptr()})
}

func (r *resolver) warnf(subject, context hcl.Range, summary, format string, args ...any) {
	r.add(&hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: subject.Ptr(), Context: context.Ptr()})
}

// declared is what index needs to know about a declaration.
type declared struct {
	name      string
	nameRange hcl.Range
	declRange hcl.Range
}

// index maps names to declarations of one kind, reporting names declared
// twice (at the second declaration) and names whose Go identifiers clash.
func index[T any](r *resolver, kind string, items []T, d func(T) declared) map[string]T {
	m := map[string]T{}
	byGo := map[string]declared{}
	for _, it := range items {
		x := d(it)
		if prev, dup := m[x.name]; dup {
			r.add(duplicate(kind, x.name, x.nameRange, d(prev).nameRange, x.declRange))
			continue
		}
		m[x.name] = it
		g := ir.GoName(x.name)
		if prev, clash := byGo[g]; clash {
			r.errorf(x.nameRange, x.declRange, "Conflicting Go names", "The %s names %q and %q (at %s) both become the Go identifier %s in generated code; rename one of them.", kind, prev.name, x.name, shortPos(prev.nameRange), g)
			continue
		}
		byGo[g] = x
	}
	r.sets[kind] = setOf(m)
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
	ns := r.kind(kind)
	return ns.has != nil && ns.has(name)
}

// names lists a kind's declared names, sorted; only needed for suggestions.
func (r *resolver) names(kind string) []string {
	if ns := r.kind(kind); ns.list != nil {
		return ns.list()
	}
	return nil
}

// nameSet is one kind's declared names.
type nameSet struct {
	has  func(string) bool
	list func() []string // sorted
}

func setOf[T any](m map[string]T) nameSet {
	return nameSet{
		has:  func(n string) bool { _, ok := m[n]; return ok },
		list: func() []string { return keys(m) },
	}
}

// kind is the set of names of a reference kind (the zero set for a kind
// that does not exist).
func (r *resolver) kind(kind string) nameSet {
	if kind == "runtime" {
		return nameSet{
			has:  func(n string) bool { return slices.Contains(decl.OptInTools, n) },
			list: func() []string { return slices.Sorted(slices.Values(decl.OptInTools)) },
		}
	}
	return r.sets[kind]
}

func keys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// inNameOrder builds one IR value per declaration of a kind, in name order.
func inNameOrder[T, U any](m map[string]T, build func(T) U) []U {
	var out []U
	for _, name := range keys(m) {
		out = append(out, build(m[name]))
	}
	return out
}

func (r *resolver) resolveQueues() []*ir.Queue {
	return inNameOrder(r.queues, func(q *queueBlock) *ir.Queue {
		return &ir.Queue{Name: q.Name, GoName: ir.GoName(q.Name), Concurrent: q.Concurrent, Range: q.DeclRange}
	})
}

func (r *resolver) resolveServers(defaults ir.Defaults) []*ir.Server {
	return inNameOrder(r.servers, func(s *serverBlock) *ir.Server {
		srv := &ir.Server{
			Name: s.Name, GoName: ir.GoName(s.Name), Transport: s.Transport,
			Command: s.Command, Args: s.Args, Env: irKeyValues(s.Env), Address: s.Address,
			Headers: irKeyValues(s.Headers), Trusted: s.Trusted,
			AllowTools: sortedStrs(s.AllowTools), DenyTools: sortedStrs(s.DenyTools),
			Timeout: s.Timeout, Cache: s.Cache, StartupTimeout: s.StartupTimeout,
			Sampling: s.Sampling, Elicitation: s.Elicitation,
			ProtocolVersion: s.ProtocolVersion, ForwardInstructions: s.ForwardInstructions, Tasks: s.Tasks, OnDrift: s.OnDrift, HealthCheck: s.HealthCheck, Auth: s.Auth, Range: s.DeclRange,
			AllowPrompts: sortedStrs(s.AllowPrompts), DenyPrompts: sortedStrs(s.DenyPrompts),
			AllowResources: sortedStrs(s.AllowResources), DenyResources: sortedStrs(s.DenyResources),
			AllowSkills: sortedStrs(s.AllowSkills), DenySkills: sortedStrs(s.DenySkills),
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
		allow := s.AllowTools
		if !s.Trusted {
			notDenied := func(tool string) bool { return !decl.MatchAny(s.filter.Deny, tool) }
			allow = r.checkExactNames(s, s.AllowTools, notDenied, "its allow_tools", s.DeclRange)
		}
		if r.cfg.lock != nil && r.cfg.lock.Servers[s.Name] != nil {
			locked := r.cfg.lock.Servers[s.Name].Tools
			srv.Locked = []*ir.LockedTool{}
			var raw []string
			for _, lt := range locked {
				srv.Locked = append(srv.Locked, &ir.LockedTool{Name: lt.Name, Description: lt.Description, InputSchema: lt.InputSchema, Hash: lt.Hash,
					Title: lt.Title, OutputSchema: lt.OutputSchema, Annotations: lt.Annotations, Meta: lt.Meta})
				raw = append(raw, lt.Name)
			}
			r.checkListAgainst(allow, raw, "allow_tools", s.Name, s.DeclRange)
			for _, ls := range r.cfg.lock.Servers[s.Name].Skills {
				sk := decl.LockedSkill{Name: ls.Name, Frontmatter: ls.Frontmatter}
				for _, f := range ls.Files {
					sk.Files = append(sk.Files, decl.LockedSkillFile{Path: f.Path, Digest: f.Digest})
				}
				srv.LockedSkills = append(srv.LockedSkills, sk)
			}
		}
		return srv
	})
}

// checkExactNames refuses globs in an allow list of an untrusted server
// (its own, or a bundle's; owner says whose): a glob would let the server add tools the spec
// never named. It suggests the locked tools the glob matches among those
// exposes lets through, and returns the list without its globs.
func (r *resolver) checkExactNames(s *serverBlock, list []str, exposes func(string) bool, owner string, ctx hcl.Range) []str {
	var exact []str
	for _, p := range list {
		if !decl.IsGlob(p.Val) {
			exact = append(exact, p)
			continue
		}
		if !validGlob(p.Val) {
			continue // already an Invalid glob
		}
		detail := fmt.Sprintf("Server %q is untrusted, so %s take exact tool names only: the glob %q would let the server add tools the spec never named.", s.Name, owner, p.Val)
		if lock := r.cfg.lock; lock != nil && lock.Servers[s.Name] != nil {
			var matched []string
			for _, lt := range lock.Servers[s.Name].Tools {
				if decl.Match(p.Val, lt.Name) && exposes(lt.Name) {
					matched = append(matched, lt.Name)
				}
			}
			if len(matched) > 0 {
				detail += fmt.Sprintf(" When toolgen lock ran, it matched these tools; list the ones you need instead: allow_tools = [%s].", strings.Join(quoteEach(matched), ", "))
			} else {
				detail += " It matches none of the tools the server had when toolgen lock ran; list the exact names of the tools you need."
			}
		} else {
			detail += " List the exact names of the tools you need; toolgen lock records the names the server offers."
		}
		r.errorf(p.Range, ctx, "Untrusted server with glob", "%s", detail)
	}
	return exact
}

func quoteEach(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// checkListAgainst warns about allow_tools entries that match none of a
// locked server's tools.
func (r *resolver) checkListAgainst(list []str, names []string, attr, server string, ctx hcl.Range) {
	for _, p := range list {
		hit := false
		for _, n := range names {
			hit = hit || decl.Match(p.Val, n)
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
	return inNameOrder(r.policies, func(b *policyBlock) *ir.Policy {
		p := b.Policy
		return &p
	})
}

func (r *resolver) resolveTools() []*ir.Tool {
	renamed := map[string]str{}
	return inNameOrder(r.tools, func(t *toolBlock) *ir.Tool {
		tool := &ir.Tool{
			Name: t.Name, GoName: ir.GoName(t.Name), Description: t.Description, Kind: toolKind(t),
			REST: t.REST, Go: t.Go, InputSchema: t.InputSchema, Category: t.Category,
			Keywords: t.Keywords, Timeout: t.Timeout, Range: t.DeclRange,
			Title: t.Title, Annotations: t.Annotations, OutputSchema: t.OutputSchema, AlwaysLoad: t.AlwaysLoad, Task: t.Task,
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
		return tool
	})
}

func (r *resolver) resolveBundles() []*ir.Bundle {
	return inNameOrder(r.bundles, func(b *bundleBlock) *ir.Bundle {
		bundle := &ir.Bundle{
			Name: b.Name, GoName: ir.GoName(b.Name), Mode: b.Mode,
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
			allow := b.AllowTools
			if !s.Trusted {
				exposes := func(tool string) bool { return serverExposes(s, tool) }
				allow = r.checkExactNames(s, b.AllowTools, exposes, fmt.Sprintf("the allow_tools of bundle %q", b.Name), b.DeclRange)
			}
			if r.cfg.lock != nil && r.cfg.lock.Servers[s.Name] != nil {
				var raw []string
				for _, lt := range r.cfg.lock.Servers[s.Name].Tools {
					if serverExposes(s, lt.Name) {
						raw = append(raw, lt.Name)
					}
				}
				r.checkListAgainst(allow, raw, "allow_tools", s.Name, b.DeclRange)
			}
		}
		for _, t := range b.Tools {
			if r.lookup(t) {
				bundle.Tools = append(bundle.Tools, t.Name)
			}
		}
		sort.Strings(bundle.Tools)
		for _, s := range b.Skills {
			if r.lookup(s) {
				bundle.Skills = appendUnique(bundle.Skills, s.Name)
			}
		}
		sort.Strings(bundle.Skills)
		return bundle
	})
}

func (r *resolver) resolveWorkflows() []*ir.Workflow {
	var out []*ir.Workflow
	seen := map[string]bool{}
	for _, w := range r.cfg.workflows {
		if seen[w.Name] {
			continue
		}
		seen[w.Name] = true
		wf := &ir.Workflow{Name: w.Name, GoName: ir.GoName(w.Name), Range: w.DeclRange}
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
