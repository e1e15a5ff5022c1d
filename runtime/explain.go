package runtime

import (
	"fmt"
	"io"
	"slices"
	"strings"
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
	Servers   []string // servers a session would connect
	Aliases   []Alias
	Tools     []ExplainedTool // sorted by name
	Notes     []string        // entries that matched nothing and similar
	Warnings  []string        // what a session would log as warning events
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

// Explain resolves an agent (at depth 0), a step ("WF/ROLE/STEP"), or an
// agent within a step, without connecting anything.
func (r *Registry) Explain(agent, step string) (*Explanation, error) {
	pool := newPool(r)
	snap := pool.snap.Load()
	x := &Explanation{Agent: agent, Step: step}
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
	var a *Agent
	if agent != "" {
		a = pool.agents[agent]
		if a == nil {
			return nil, (&Session{reg: r}).unknownAgent(agent)
		}
		tr := &trace{reasons: map[string][]string{}, excluded: map[string]bool{}}
		res := pool.resolveAgent(snap, a, 0, tr)
		x.MaxDepth, x.Discovery, x.Aliases = res.maxDepth, a.Discovery, a.Aliases
		x.Servers = pool.serversFor(snap, a)
		x.Warnings = append(x.Warnings, warningTexts(res.warnings)...)
		x.Notes = append(x.Notes, tr.reasons[""]...)
		for name, reasons := range tr.reasons {
			if name == "" || name == ToolMCPCall || name == ToolSpawnAgents || name == ToolListAgents {
				continue
			}
			status := StatusExcluded
			if res.allowed[name] {
				status = StatusCallable
				if a.Discovery {
					status = StatusLoadable
					reasons = append(slices.Clone(reasons), "discovery = true: load with tool_load")
				}
			}
			put(name, kindOf(name), status, reasons...)
		}
		st := &agentState{s: &Session{reg: r, pool: pool}, agent: a, res: res, maxBytes: r.Defaults.ResponseMaxBytes}
		st.addRuntimeTools(func(e *entry, _ bool) {
			put(e.info.Name, e.info.Kind, StatusCallable, runtimeReason(e, a, tr)...)
		})
		for _, n := range []string{ToolSpawnAgents, ToolListAgents} {
			if !res.spawn {
				put(n, KindAgent, StatusExcluded, tr.reasons[n]...)
			}
		}
	}
	if step != "" {
		wf, role, name, ok := splitStepAddr(step)
		if !ok {
			return nil, fmt.Errorf("step %q: want WF/ROLE/STEP", step)
		}
		x.Bundles = r.StepBundles(wf, role, name)
		if x.Bundles == nil {
			x.Notes = append(x.Notes, fmt.Sprintf("step %s has no route: deny by default, no step tools", step))
		}
		tr := &trace{reasons: map[string][]string{}, excluded: map[string]bool{}}
		ss, warns := pool.resolveStep(snap, a, step, x.Bundles, tr)
		x.Warnings = append(x.Warnings, warningTexts(warns)...)
		for n, reasons := range tr.reasons {
			if n == "" || n == ToolMCPCall {
				continue
			}
			status := StatusExcluded
			if ss.direct[n] {
				status = StatusCallable
			}
			put(n, kindOf(n), status, reasons...)
		}
		if len(ss.meta) > 0 {
			for _, n := range []string{ToolMCPCall, ToolMCPList, ToolMCPSchema} {
				put(n, KindMeta, StatusCallable, tr.reasons[ToolMCPCall]...)
			}
		}
		for _, s := range ss.servers {
			if !slices.Contains(x.Servers, s) {
				x.Servers = append(x.Servers, s)
			}
		}
		slices.Sort(x.Servers)
	}
	if agent == "" && step == "" {
		return nil, fmt.Errorf("explain needs an agent or a step")
	}
	for _, n := range sortedKeys(tools) {
		t := tools[n]
		t.Reasons = dedupe(t.Reasons)
		x.Tools = append(x.Tools, *t)
	}
	return x, nil
}

func runtimeReason(e *entry, a *Agent, tr *trace) []string {
	switch e.info.Kind {
	case KindInternal:
		return []string{"internal tool: always available"}
	case KindRouter:
		return []string{"router destinations: " + strings.Join(a.Router, ", ")}
	case KindDiscovery:
		return []string{"discovery = true"}
	case KindOutput:
		return []string{"defaults.response_max_bytes: pages through spilled outputs"}
	case KindMeta:
		if r := tr.reasons[ToolMCPCall]; len(r) > 0 {
			return r
		}
		return []string{"discovery = true: calls loaded tools"}
	case KindAgent:
		if strings.HasPrefix(e.info.Name, subagentPrefix) {
			return []string{"subagents: " + strings.TrimPrefix(e.info.Name, subagentPrefix)}
		}
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
		fmt.Fprintf(&b, "  depth 0, max_depth %d, discovery %v\n", x.MaxDepth, x.Discovery)
	}
	if x.Step != "" {
		fmt.Fprintf(&b, "  bundles: %s\n", orNone(x.Bundles))
	}
	fmt.Fprintf(&b, "  servers: %s\n", orNone(x.Servers))
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
