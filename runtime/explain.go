package runtime

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Explanation is what an agent or a workflow step can see and call, and
// why: each tool with the use entry, glob, alias, bundle or restriction
// that put it in or kept it out. It is computed by the resolution code
// sessions use, over the registry's static pool (declared and locked
// tools; nothing is connected).
type Explanation struct {
	Agent     string
	Step      string // "WF/ROLE/STEP" or ""
	Depth     int
	MaxDepth  int
	Discovery bool
	Bundles   []string // the step's bundles
	Routed    string   // where the step's bundles come from: "route override" or "" (the registry)
	Servers   []string // servers a session would connect
	Aliases   []decl.Alias
	Tools     []ExplainedTool // sorted by name
	// Model is the agent's model and loop bound, as `run` would use them.
	Model *ExplainedModel `json:",omitempty"`
	// Prompts and Resources are what the agent offers besides tools:
	// declared ones by name, and per server the policy its proxied ones
	// pass (their names are known only once the server is connected).
	Prompts   []ExplainedFeature `json:",omitempty"`
	Resources []ExplainedFeature `json:",omitempty"`
	// Skills are the declared skills the agent may use, each with what
	// brings it (skills.go), then per server whose skills pass through the
	// policy they pass and the locked ones it admits (upstream_skills.go).
	Skills   []ExplainedFeature `json:",omitempty"`
	Notes    []string           // entries that matched nothing and similar
	Warnings []string           // what a session would log as warning events
}

// ToolStatus says where a tool ends up.
type ToolStatus string

const (
	StatusCallable ToolStatus = "callable" // listed and callable
	StatusLoadable ToolStatus = "loadable" // discovery: callable after tool_load
	StatusExcluded ToolStatus = "excluded" // considered and kept out
)

type ExplainedTool struct {
	Name    string
	Kind    ToolKind
	Status  ToolStatus
	Reasons []string
}

// ExplainedModel is where an agent's turns go.
type ExplainedModel struct {
	Block    string // the model block ("" when the agent has none)
	Provider string
	Name     string // the provider's model name
	MaxTurns int
}

// ExplainedFeature is a declared prompt or resource the agent offers, or a
// server whose prompts or resources it passes on.
type ExplainedFeature struct {
	Name   string // exposed name, or "server.NAME" for a server's
	URI    string `json:",omitempty"` // a declared resource's
	Reason string
}

// ExplainOptions say what to explain: an agent, a step ("WF/ROLE/STEP"),
// or an agent within a step, at a sub-agent depth, with the step routes a
// session would get through Options.Routes.
type ExplainOptions struct {
	Agent  string
	Step   string
	Depth  int
	Routes map[string][]string
}

// Explain resolves what a session would expose, without connecting
// anything. For an agent within a step it is the agent's surface while
// that step is active: the step's bundles, cut to tools.allowed, plus the
// runtime tools the agent declares.
func Explain(r *Registry, o ExplainOptions) (*Explanation, error) {
	if o.Agent == "" && o.Step == "" {
		return nil, fmt.Errorf("explain needs an agent or a step")
	}
	pool := newPool(r)
	snap := pool.snap.Load()
	x := &Explanation{Agent: o.Agent, Step: o.Step, Depth: o.Depth}
	for _, c := range snap.collisions {
		x.Warnings = append(x.Warnings, fmt.Sprintf("%s: %s is taken by %s; %s is not offered", EventToolCollision, c.name, c.winner, c.loser))
	}
	tools := map[string]*ExplainedTool{}
	put := func(name string, kind ToolKind, status ToolStatus, reasons ...string) {
		t := tools[name]
		if t == nil {
			t = &ExplainedTool{Name: name, Kind: kind, Status: status}
			tools[name] = t
		} else if status == StatusCallable || (status == StatusLoadable && t.Status == StatusExcluded) {
			t.Status = status
		}
		t.Reasons = append(t.Reasons, reasons...)
	}
	kindOf := func(name string) ToolKind {
		if pt := snap.byName[name]; pt != nil {
			return pt.Kind
		}
		return ""
	}

	var a *decl.Agent
	if o.Agent != "" {
		if a = pool.agents[o.Agent]; a == nil {
			return nil, unknownAgent(r, o.Agent)
		}
	}
	var ss *stepSurface
	stepTr := newTrace()
	if o.Step != "" {
		wf, role, name, ok := decl.SplitStepAddr(o.Step)
		if !ok {
			return nil, fmt.Errorf("step %q: want WF/ROLE/STEP", o.Step)
		}
		var overridden bool
		x.Bundles, overridden = route(r, o.Routes, wf, role, name)
		if overridden {
			x.Routed = "route override"
		}
		if x.Bundles == nil && !overridden {
			x.Notes = append(x.Notes, fmt.Sprintf("step %s has no route: deny by default, no step tools", o.Step))
		}
		var warns []warning
		ss, warns = pool.resolveStep(snap, a, o.Step, x.Bundles, stepTr)
		x.Warnings = append(x.Warnings, warningTexts(warns)...)
		x.Servers = append(x.Servers, ss.servers...)
	}

	if a != nil {
		tr := newTrace()
		res := pool.resolveAgent(snap, a, o.Depth, 0, tr)
		x.MaxDepth, x.Discovery, x.Aliases = res.maxDepth, a.Discovery, a.Aliases
		for _, s := range pool.serversFor(snap, a) {
			if !slices.Contains(x.Servers, s) {
				x.Servers = append(x.Servers, s)
			}
		}
		x.Warnings = append(x.Warnings, warningTexts(res.warnings)...)
		x.Notes = append(x.Notes, tr.reasons[""]...)
		for name, reasons := range tr.reasons {
			if name == "" || name == decl.ToolMCPCall || name == decl.ToolSpawnAgents || name == decl.ToolListAgents || tr.runtime[name] {
				continue
			}
			status := StatusExcluded
			switch {
			case ss != nil:
				if ss.direct[name] {
					continue // the step's reasons say why
				}
				if res.allowed[name] {
					reasons = append(slices.Clone(reasons), fmt.Sprintf("not in the bundles of step %s: a step narrows the surface to its bundles", o.Step))
				}
			case res.allowed[name]:
				status = StatusCallable
				if a.Discovery {
					status = StatusLoadable
					reasons = append(slices.Clone(reasons), "discovery = true: load with tool_load")
				}
			}
			put(name, kindOf(name), status, reasons...)
		}
		meta, metaTr := res.meta, tr
		if ss != nil {
			meta, metaTr = ss.meta, stepTr
			if len(res.meta) > 0 && len(ss.meta) == 0 {
				reason := fmt.Sprintf("the agent's meta bundles are not in force at step %s, which selects none", o.Step)
				put(decl.ToolMCPList, decl.KindMeta, StatusExcluded, reason)
				put(decl.ToolMCPSchema, decl.KindMeta, StatusExcluded, reason)
				if !a.Discovery {
					put(decl.ToolMCPCall, decl.KindMeta, StatusExcluded, reason)
				}
			}
		}
		// The tools are listed, never run: they close over no parts.
		runtimeTools(a, res, pool.agents, meta, r.Defaults.ResponseMaxBytes, runtimeParts{}, func(e *entry, _ bool) {
			put(e.info.Name, e.info.Kind, StatusCallable, runtimeReason(e, a, tr, metaTr)...)
		})
		for n, reasons := range tr.reasons {
			if tr.runtime[n] && tr.excluded[n] {
				put(n, decl.KindAgent, StatusExcluded, reasons...)
			}
		}
	}

	if ss != nil {
		for n, reasons := range stepTr.reasons {
			if n == "" || n == decl.ToolMCPCall {
				continue
			}
			status := StatusExcluded
			if ss.direct[n] {
				status = StatusCallable
			}
			put(n, kindOf(n), status, reasons...)
		}
		if a == nil && len(ss.meta) > 0 {
			for _, n := range []string{decl.ToolMCPCall, decl.ToolMCPList, decl.ToolMCPSchema} {
				put(n, decl.KindMeta, StatusCallable, stepTr.reasons[decl.ToolMCPCall]...)
			}
		}
	}
	if a != nil {
		listUnderAliases(tools, a.Aliases)
		x.Model = explainModel(r, a)
		x.Prompts, x.Resources = explainFeatures(r, pool, a, x.Bundles, ss != nil)
		x.Skills = explainSkills(r, a, x.Bundles, ss != nil)
		up, notes := explainUpstreamSkills(r, pool, a, x.Bundles, ss != nil)
		x.Skills = append(x.Skills, up...)
		x.Notes = append(x.Notes, notes...)
	}
	slices.Sort(x.Servers)
	for _, n := range sortedKeys(tools) {
		t := tools[n]
		t.Reasons = dedupe(t.Reasons)
		x.Tools = append(x.Tools, *t)
	}
	return x, nil
}

// explainModel is the agent's model block, or none: such an agent runs
// only where an MCP host answers sampling.
func explainModel(r *Registry, a *decl.Agent) *ExplainedModel {
	m := &ExplainedModel{Block: a.Model, MaxTurns: a.MaxTurns}
	if m.MaxTurns == 0 {
		m.MaxTurns = decl.DefaultMaxTurns
	}
	if d := r.Model(a.Model); d != nil {
		m.Provider, m.Name = d.Provider, d.ModelName.Text()
	}
	return m
}

// explainFeatures lists the prompts and resources a session would offer:
// the declared ones in use that tools.allowed admits, and the trusted
// servers whose own pass through (inside a step, only its bundles').
func explainFeatures(r *Registry, p *Pool, a *decl.Agent, bundles []string, inStep bool) (ps, rs []ExplainedFeature) {
	uses := a.Use
	if inStep {
		uses = stepUses(bundles)
	}
	for i, u := range uses {
		switch u.Kind {
		case decl.UsePrompt:
			if agentAdmits(a, decl.Match, u.Name) {
				ps = append(ps, ExplainedFeature{Name: u.Name, Reason: fmt.Sprintf("tools.use[%d] prompt.%s", i, u.Name)})
			}
		case decl.UseResource:
			for _, res := range r.Resources {
				if res.Name == u.Name && agentAdmits(a, decl.MatchURI, res.Name, res.URI) {
					rs = append(rs, ExplainedFeature{Name: res.Name, URI: res.URI, Reason: fmt.Sprintf("tools.use[%d] resource.%s", i, u.Name)})
				}
			}
		}
	}
	cut := ""
	if a.Allowed != nil {
		cut = "; cut to tools.allowed"
	}
	for _, name := range p.featureServers(uses) {
		srv := p.servers[name]
		ps = append(ps, ExplainedFeature{Name: "server." + name, Reason: "its prompts, as " + name + r.Sep() + "NAME" + policyText("allow_prompts", srv.AllowPrompts, "deny_prompts", srv.DenyPrompts) + cut})
		rs = append(rs, ExplainedFeature{Name: "server." + name, Reason: "its resources and templates, URIs unchanged" + policyText("allow_resources", srv.AllowResources, "deny_resources", srv.DenyResources) + cut})
	}
	return ps, rs
}

// policyText is a server's allow/deny lists for one feature, when set.
func policyText(allowAttr string, allow []string, denyAttr string, deny []string) string {
	var b strings.Builder
	if allow != nil {
		fmt.Fprintf(&b, ", %s = [%s]", allowAttr, strings.Join(allow, ", "))
	}
	if len(deny) > 0 {
		fmt.Fprintf(&b, ", %s = [%s]", denyAttr, strings.Join(deny, ", "))
	}
	return b.String()
}

// listUnderAliases renames a callable or loadable tool with an alias to
// the alias a session lists it under (aliasFor).
func listUnderAliases(tools map[string]*ExplainedTool, aliases []decl.Alias) {
	taken := func(n string) bool { return tools[n] != nil }
	renamed := map[string]string{}
	for _, name := range sortedKeys(tools) {
		if t := tools[name]; t.Status != StatusExcluded {
			if al := aliasFor(aliases, name, taken); al != "" {
				renamed[name] = al
			}
		}
	}
	for name, al := range renamed {
		c := *tools[name]
		c.Name = al
		c.Reasons = append(slices.Clone(c.Reasons), fmt.Sprintf("listed under its alias %q (%s still answers calls)", al, name))
		tools[al] = &c
		delete(tools, name)
	}
}

func runtimeReason(e *entry, a *decl.Agent, tr, metaTr *trace) []string {
	switch e.info.Kind {
	case decl.KindInternal, decl.KindOutput:
		return tr.reasons[e.info.Name] // tools.use[i] runtime.NAME
	case decl.KindRouter:
		return []string{"router destinations: " + strings.Join(a.Router, ", ")}
	case decl.KindDiscovery:
		return []string{"discovery = true"}
	case decl.KindMeta:
		if r := metaTr.reasons[decl.ToolMCPCall]; len(r) > 0 {
			return r
		}
		return []string{"discovery = true: calls loaded tools"}
	case decl.KindAgent:
		return tr.reasons[e.info.Name]
	}
	return nil
}

func warningTexts(ws []warning) []string {
	var out []string
	for _, w := range ws {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s", w.event, w.msg)
		for _, at := range w.attrs {
			fmt.Fprintf(&b, " %s=%s", at.Key, at.Value)
		}
		out = append(out, b.String())
	}
	return out
}

func dedupe(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// WriteTo prints the explanation for people.
func (x *Explanation) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	switch {
	case x.Agent != "" && x.Step != "":
		fmt.Fprintf(&b, "agent %s at step %s\n", x.Agent, x.Step)
	case x.Agent != "":
		fmt.Fprintf(&b, "agent %s\n", x.Agent)
	default:
		fmt.Fprintf(&b, "step %s\n", x.Step)
	}
	if x.Agent != "" {
		fmt.Fprintf(&b, "  depth %d, max_depth %d, discovery %v\n", x.Depth, x.MaxDepth, x.Discovery)
	}
	if x.Step != "" {
		routed := ""
		if x.Routed != "" {
			routed = " (" + x.Routed + ")"
		}
		fmt.Fprintf(&b, "  bundles: %s%s\n", orNone(x.Bundles), routed)
		if x.Agent != "" {
			fmt.Fprintf(&b, "  while the step is active: its bundles, cut to tools.allowed, plus the agent's runtime tools\n")
		}
	}
	fmt.Fprintf(&b, "  servers: %s\n", orNone(x.Servers))
	if m := x.Model; m != nil {
		if m.Block == "" {
			fmt.Fprintf(&b, "  model: (none) runs only under an MCP host that answers sampling\n")
		} else {
			fmt.Fprintf(&b, "  model: %s (%s %s), max_turns %d\n", m.Block, m.Provider, m.Name, m.MaxTurns)
		}
	}
	for _, al := range x.Aliases {
		fmt.Fprintf(&b, "  alias %s -> %s\n", al.Name, al.Target)
	}
	for _, status := range []ToolStatus{StatusCallable, StatusLoadable, StatusExcluded} {
		var rows []ExplainedTool
		for _, t := range x.Tools {
			if t.Status == status {
				rows = append(rows, t)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", status, len(rows))
		for _, t := range rows {
			kind := string(t.Kind)
			if kind == "" {
				kind = "?"
			}
			fmt.Fprintf(&b, "  %-36s %-9s %s\n", t.Name, kind, strings.Join(t.Reasons, "; "))
		}
	}
	for _, f := range []struct {
		title string
		rows  []ExplainedFeature
	}{{"prompts", x.Prompts}, {"resources", x.Resources}, {"skills", x.Skills}} {
		if len(f.rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", f.title, len(f.rows))
		for _, r := range f.rows {
			name := r.Name
			if r.URI != "" {
				name += " " + r.URI
			}
			fmt.Fprintf(&b, "  %-46s %s\n", name, r.Reason)
		}
	}
	if len(x.Notes) > 0 {
		b.WriteString("\nnotes:\n")
		for _, n := range x.Notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	if len(x.Warnings) > 0 {
		b.WriteString("\nwarnings:\n")
		for _, n := range x.Warnings {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}
