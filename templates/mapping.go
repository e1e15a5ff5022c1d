package templates

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// RuntimeRegistry builds in memory the Registry that registry_gen.go
// declares, from the same mapping, for toolgen explain and tests. What only
// compiled code can hold differs: Go function tools have no Go func (the
// user's function is not linked into toolgen), and Allow and Route are
// closures over the same tables the generated switches print. goTools is
// what LoadGoTools found; nil leaves Go tools without derived schemas.
func RuntimeRegistry(spec *ir.Spec, goTools *GoTools) *decl.Registry {
	reg := registryValue(spec, goTools)
	for i, a := range spec.Agents {
		reg.Agents[i].Allow = allowCheck(a.Allow)
	}
	table := make(map[[3]string][]string)
	for _, r := range routes(spec) {
		table[[3]string{r.Workflow, r.Role, r.Step}] = slices.Clip(append([]string{}, r.Bundles...))
	}
	reg.Route = func(workflow, role, step string) []string {
		return table[[3]string{workflow, role, step}]
	}
	reg.Index = search.Build(searchDocs(spec, goTools))
	return reg
}

// registryValue maps the IR to the runtime's Registry: the one mapping the
// emitter prints and RuntimeRegistry returns. Func and index fields are
// left for the caller.
func registryValue(spec *ir.Spec, goTools *GoTools) *decl.Registry {
	sep := spec.Separator
	if sep == "" {
		sep = "__"
	}
	reg := &decl.Registry{
		Package:   spec.Package,
		Separator: sep,
		Defaults:  defaultsValue(spec.Defaults),
	}
	for _, q := range spec.Queues {
		reg.Queues = append(reg.Queues, decl.Queue{Name: q.Name, Concurrent: q.Concurrent})
	}
	for _, s := range spec.Servers {
		reg.Servers = append(reg.Servers, serverValue(s))
	}
	for _, p := range spec.Policies {
		reg.Policies = append(reg.Policies, policyValue(p))
	}
	reg.Tools = toolValues(spec, goTools)
	for _, b := range spec.Bundles {
		reg.Bundles = append(reg.Bundles, bundleValue(b))
	}
	for _, a := range spec.Agents {
		reg.Agents = append(reg.Agents, agentValue(a))
	}
	for _, w := range spec.Workflows {
		reg.Workflows = append(reg.Workflows, workflowValue(w))
	}
	for _, m := range spec.Models {
		reg.Models = append(reg.Models, modelValue(m))
	}
	reg.Prompts, reg.Resources = featureValues(spec)
	reg.Skills = skillValues(spec)
	if e := spec.Enrich; e != nil && e.AtRunTime {
		reg.Enrich = &decl.Enrich{Model: e.Model, Queries: e.Queries, Concurrency: e.Concurrency}
	}
	return reg
}

func defaultsValue(d ir.Defaults) decl.Defaults {
	return decl.Defaults{
		ToolTimeout:      d.ToolTimeout,
		ResponseMaxBytes: d.ResponseMaxBytes,
		StartupTimeout:   d.StartupTimeout,
		MaxDepth:         d.MaxDepth,
		ContextBudget:    d.ContextBudget,
		InitConcurrency:  d.InitConcurrency,
		Model:            d.Model,
	}
}

func modelValue(m *ir.Model) decl.Model {
	return decl.Model{
		Name:        m.Name,
		Provider:    m.Provider,
		ModelName:   m.ModelName.Decl(),
		BaseURL:     m.BaseURL.Decl(),
		APIKey:      m.APIKey.Decl(),
		MaxTokens:   m.MaxTokens,
		Temperature: m.Temperature,
		Timeout:     m.Timeout,
		Headers:     keyValues(m.Headers),
	}
}

// keyValues keeps env() parts as names (ir.Value.Decl): the secret is read
// when the binary runs.
func keyValues(kvs []ir.KeyValue) []decl.KeyValue {
	if kvs == nil {
		return nil
	}
	out := make([]decl.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = decl.KeyValue{Key: kv.Key, Value: kv.Value.Decl()}
	}
	return out
}

// RuntimeServer is the runtime form of one spec server: what `toolgen lock`
// connects with, so that it connects exactly as an agent binary would.
func RuntimeServer(s *ir.Server) decl.Server { return serverValue(s) }

func serverValue(s *ir.Server) decl.Server {
	out := decl.Server{
		Name:            s.Name,
		Transport:       s.Transport,
		Command:         s.Command,
		Args:            s.Args,
		Env:             keyValues(s.Env),
		URL:             s.URL.Decl(),
		Address:         s.Address,
		Headers:         keyValues(s.Headers),
		Trusted:         s.Trusted,
		AllowTools:      s.AllowTools,
		DenyTools:       s.DenyTools,
		Queue:           s.Queue,
		Timeout:         s.Timeout,
		Cache:           s.Cache,
		StartupTimeout:  s.StartupTimeout,
		ProtocolVersion: s.ProtocolVersion,
		Sampling:        s.Sampling,
		Elicitation:     s.Elicitation,
		AllowPrompts:    s.AllowPrompts,
		DenyPrompts:     s.DenyPrompts,
		AllowResources:  s.AllowResources,
		DenyResources:   s.DenyResources,
		AllowSkills:     s.AllowSkills,
		DenySkills:      s.DenySkills,
		LockedSkills:    s.LockedSkills,
		SkillsLocked:    s.LockedSkills != nil,
	}
	out.ForwardInstructions = s.ForwardInstructions
	out.Tasks = s.Tasks
	out.OnDrift = s.OnDrift
	if h := s.HealthCheck; h != nil {
		out.HealthInterval, out.HealthTimeout = h.Interval, h.Timeout
	}
	if s.Auth != nil { // env() parts stay names, read when the agent connects
		auth := s.Auth.ServerAuth
		out.Auth = &auth
	}
	return out
}

func policyValue(p *ir.Policy) decl.Policy {
	return decl.Policy{
		Name:            p.Name,
		Builtin:         p.Builtin,
		AllowedPaths:    p.AllowedPaths,
		AllowedCommands: p.AllowedCommands,
		Timeout:         p.Timeout,
		MaxOutputBytes:  p.MaxOutputBytes,
		AllowHardlinks:  p.AllowHardlinks,
		MaxProcesses:    p.MaxProcesses,
		MaxMemoryMiB:    p.MaxMemoryMiB,
		MaxCPUTime:      p.MaxCPUTime,
	}
}

// toolValues lists declared tools and the locked tools of servers (the MCP
// part of the catalog, already filtered by each server's allow/deny), by
// exposed name.
func toolValues(spec *ir.Spec, goTools *GoTools) []decl.Tool {
	out := make([]decl.Tool, 0, len(spec.Catalog))
	catalog := make(map[string]*ir.CatalogTool, len(spec.Catalog))
	for _, c := range spec.Catalog {
		catalog[c.Name] = c
	}
	for _, t := range spec.Tools {
		d := declaredTool(t, goTools.Tool(t.Name))
		d.Meta = hostHints(d.Meta, catalog[t.Name], t.AlwaysLoad, t.Task)
		out = append(out, d)
	}
	for _, c := range spec.Catalog {
		if c.Kind != ir.KindMCP {
			continue
		}
		t := decl.Tool{
			Name:        c.Name,
			Description: c.Description,
			Kind:        decl.KindMCP,
			Category:    c.Category,
			Keywords:    c.Keywords,
			Server:      c.Server,
			Original:    c.Original,
		}
		if l := spec.LockedTool(c.Server, c.Original); l != nil {
			t.InputSchema = l.InputSchema
			t.Title, t.OutputSchema, t.Meta = l.Title, l.OutputSchema, l.Meta
			t.Annotations = lockedAnnotations(l.Annotations)
		}
		t.Meta = hostHints(t.Meta, c, false, "")
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b decl.Tool) int { return strings.Compare(a.Name, b.Name) })
	for i := range out {
		t := &out[i]
		t.InputSchema, t.OutputSchema, t.Meta = compactJSON(t.InputSchema), compactJSON(t.OutputSchema), compactJSON(t.Meta)
	}
	return out
}

// compactJSON drops the insignificant space of a schema (a lock file may
// hold it indented): the generated tool data is one line per tool, and
// RuntimeRegistry must hold the same bytes. Invalid JSON stays as it is.
func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil || buf.Len() == len(raw) {
		return raw
	}
	return buf.Bytes()
}

// declaredTool maps a declared tool; g is what LoadGoTools found for a Go
// tool (nil otherwise), whose input schema it takes.
func declaredTool(t *ir.Tool, g *GoTool) decl.Tool {
	out := decl.Tool{
		Name:         t.Name,
		Description:  t.Description,
		Kind:         decl.ToolKind(t.Kind),
		InputSchema:  t.InputSchema,
		Category:     t.Category,
		Keywords:     t.Keywords,
		RenamedFrom:  t.RenamedFrom,
		Policy:       t.Policy,
		Queue:        t.Queue,
		Timeout:      t.Timeout,
		Title:        t.Title,
		OutputSchema: t.OutputSchema,
	}
	if a := t.Annotations; a != nil {
		out.Annotations = &decl.ToolAnnotations{ReadOnly: a.ReadOnly, Destructive: a.Destructive, Idempotent: a.Idempotent, OpenWorld: a.OpenWorld}
	}
	if r := t.REST; r != nil {
		out.REST = &decl.REST{Method: r.Method, URL: r.URL.Decl(), Headers: keyValues(r.Headers)}
	}
	if g != nil {
		out.InputSchema, out.OutputSchema, out.RichResult = g.InputSchema, g.OutputSchema, g.RichResult
	}
	return out
}

// lockedAnnotations reads the annotations a lock file recorded in MCP's
// form; hints the server left out stay unsaid.
func lockedAnnotations(raw json.RawMessage) *decl.ToolAnnotations {
	var a struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		Idempotent  *bool `json:"idempotentHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return &decl.ToolAnnotations{ReadOnly: a.ReadOnly, Destructive: a.Destructive, Idempotent: a.Idempotent, OpenWorld: a.OpenWorld}
}

func bundleValue(b *ir.Bundle) decl.Bundle {
	return decl.Bundle{
		Name:       b.Name,
		Mode:       b.Mode,
		Server:     b.Server,
		Tools:      b.Tools,
		AllowTools: b.AllowTools,
		DenyTools:  b.DenyTools,
		Skills:     b.Skills,
	}
}

func agentValue(a *ir.Agent) decl.Agent {
	out := decl.Agent{
		Name:        a.Name,
		Description: a.Description,
		Discovery:   a.Discovery,
		Subagents:   a.Subagents,
		Spawn:       a.Spawn,
		MaxDepth:    a.MaxDepth,
		Router:      a.Router,
		Skills:      a.Skills,

		Model:        a.Model,
		Instructions: a.Instructions,
		MaxTurns:     a.MaxTurns,
	}
	for _, u := range a.Use {
		out.Use = append(out.Use, decl.Use{Kind: decl.UseKind(u.Kind), Name: u.Name})
	}
	if a.AllowedSet {
		// Non-nil even when empty: allowed = [] permits nothing, while nil
		// means everything in use.
		out.Allowed = make([]string, 0, len(a.Allowed))
		for _, e := range a.Allowed {
			out.Allowed = append(out.Allowed, e.Pattern)
		}
	}
	for _, al := range a.Aliases {
		out.Aliases = append(out.Aliases, decl.Alias{Name: al.Name, Target: al.Target})
	}
	return out
}

func workflowValue(w *ir.Workflow) decl.Workflow {
	out := decl.Workflow{Name: w.Name}
	for _, r := range w.Roles {
		role := decl.Role{Name: r.Name}
		for _, s := range r.Steps {
			role.Steps = append(role.Steps, decl.Step{Name: s.Name, Bundles: s.Bundles})
		}
		out.Roles = append(out.Roles, role)
	}
	return out
}

// searchDocs is the catalog as search documents: what index_gen.go holds.
// A Go tool's parameters come from its type-checked schema.
func searchDocs(spec *ir.Spec, goTools *GoTools) []search.Doc {
	docs := make([]search.Doc, len(spec.Catalog))
	for i, c := range spec.Catalog {
		docs[i] = search.Doc{
			Name:        c.Name,
			Description: c.Description,
			Category:    c.Category,
			Keywords:    c.Keywords,
			Params:      goTools.CatalogParams(c),
			Queries:     c.Queries,
		}
	}
	return docs
}
