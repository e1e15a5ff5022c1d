package hcl

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Resolution of agents: their tool surface, aliases and sub-agents.

// runtimeNames are the tools the runtime adds to an agent's surface. Their
// names are fixed (decl's constants and decl.SubagentPrefix) whatever the
// spec's separator.
func (r *resolver) runtimeNames(a *agentBlock) []string {
	var names []string
	for _, u := range a.Use {
		if u.Ref != nil && u.Ref.Kind == "runtime" && slices.Contains(decl.OptInTools, u.Ref.Name) {
			names = appendUnique(names, u.Ref.Name)
		}
	}
	for _, s := range a.Subagents {
		names = append(names, decl.SubagentPrefix+s.Name)
	}
	if a.RouterSet {
		names = append(names, decl.ToolHandoff)
	}
	if a.Spawn {
		names = append(names, decl.ToolSpawnAgents, decl.ToolListAgents)
	}
	if a.Discovery {
		// mcp_call_tool calls loaded tools by name
		names = append(names, decl.ToolFind, decl.ToolDescribe, decl.ToolLoad, decl.ToolActive, decl.ToolMCPCall)
	}
	for _, u := range a.Use {
		if u.Ref != nil && u.Ref.Kind == "bundle" {
			if b := r.bundles[u.Ref.Name]; b != nil && b.Mode == ir.ModeMeta {
				names = appendUnique(append(names, decl.ToolMCPList, decl.ToolMCPSchema), decl.ToolMCPCall)
				break
			}
		}
	}
	sort.Strings(names)
	return names
}

func (r *resolver) resolveAgents(defaults ir.Defaults) []*ir.Agent {
	return inNameOrder(r.agents, func(a *agentBlock) *ir.Agent {
		agent := &ir.Agent{
			Name: a.Name, GoName: ir.GoName(a.Name), Description: a.Description,
			Discovery: a.Discovery, Spawn: a.Spawn, MaxDepth: defaults.MaxDepth, AllowedSet: a.AllowedSet, Range: a.DeclRange,
		}
		if a.MaxDepth != nil {
			agent.MaxDepth = *a.MaxDepth
		}
		rt := r.runtimeNames(a)
		aliases := r.resolveAliases(a, rt)
		agent.Aliases = aliases

		for _, u := range a.Use {
			if u.Ref != nil && u.Ref.Kind == "runtime" {
				if r.checkRuntimeRef(a, *u.Ref) {
					agent.Use = append(agent.Use, ir.UseEntry{Kind: ir.UseRuntime, Name: u.Ref.Name, Range: u.Range})
				}
				continue
			}
			if u.Ref != nil && u.Ref.Kind == "tool" && decl.IsReservedToolName(u.Ref.Name) && !r.declared("tool", u.Ref.Name) {
				// tool.spawn_agents and the like: say what adds them
				r.errorf(u.Ref.Range, a.ToolsRange, "Unknown tool", "No tool named %q is declared: it is one of the runtime's own tools.%s", u.Ref.Name, runtimeToolHint(u.Ref.Name))
				continue
			}
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
			if len(matches) == 0 && !r.unlockedCouldMatch(u.Str.Val, false) && len(r.skillsMatching(u.Str.Val)) == 0 {
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
				entry := ir.AllowEntry{Pattern: pattern, IsGlob: al.Ref == nil && decl.IsGlob(pattern), Range: al.Range}
				matches := r.matchCatalog(pattern, true) // sorted
				known := len(matches) > 0
				for _, alias := range aliases {
					if decl.Match(pattern, alias.Name) {
						known = true
						if r.catalog[alias.Target] != nil {
							if i, found := slices.BinarySearch(matches, alias.Target); !found {
								matches = slices.Insert(matches, i, alias.Target)
							}
						}
					}
				}
				for _, n := range rt {
					known = known || decl.Match(pattern, n)
				}
				known = known || r.featureCouldMatch(pattern)
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
			agent.Allow = allowSet(agent.Allowed, aliases)
			r.warnRuntimeNotAllowed(a, rt, agent.Allowed, aliases)
		}

		agent.Skills = r.agentSkills(a)
		for _, s := range a.Subagents {
			if !r.lookup(s) {
				continue
			}
			if exposed := decl.SubagentPrefix + s.Name; len(exposed) > 64 {
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
		return agent
	})
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
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
		if slices.Contains(runtimeNames, al.Name) {
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
			if slices.Contains(chain, cur) {
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
		if r.catalog[cur] == nil && !slices.Contains(runtimeNames, cur) && !r.unlockedCouldMatch(cur, false) {
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

// checkRuntimeRef reports whether runtime.NAME in tools.use names one of
// the runtime's opt-in tools; the others come with their own settings.
func (r *resolver) checkRuntimeRef(a *agentBlock, rf ref) bool {
	if slices.Contains(decl.OptInTools, rf.Name) {
		return true
	}
	detail := fmt.Sprintf("%q is not a runtime tool that tools.use opts in to; those are %s.", rf.Name, strings.Join(r.names("runtime"), ", "))
	if hint := runtimeToolHint(rf.Name); hint != "" {
		detail += hint
	} else {
		detail += didYouMean(rf.Name, r.names("runtime"))
	}
	r.errorf(rf.Range, a.ToolsRange, "Unknown runtime tool", "%s", detail)
	return false
}

// runtimeToolHint says which setting adds a runtime tool, or "".
func runtimeToolHint(name string) string {
	switch {
	case slices.Contains(decl.OptInTools, name):
		return fmt.Sprintf(" Opt in to it with runtime.%s in tools.use.", name)
	case slices.Contains([]string{decl.ToolFind, decl.ToolDescribe, decl.ToolLoad, decl.ToolActive}, name):
		return fmt.Sprintf(" %s comes with discovery = true.", name)
	case name == decl.ToolSpawnAgents || name == decl.ToolListAgents:
		return fmt.Sprintf(" %s comes with spawn = true.", name)
	case name == decl.ToolHandoff:
		return " router__handoff-to comes with a router block."
	case slices.Contains([]string{decl.ToolMCPList, decl.ToolMCPSchema, decl.ToolMCPCall}, name):
		return fmt.Sprintf(" %s comes with a bundle of mode \"meta\" (mcp_call_tool also with discovery = true).", name)
	case strings.HasPrefix(name, decl.SubagentPrefix):
		return fmt.Sprintf(" A sub-agent's tool comes with subagents = [agent.%s].", strings.TrimPrefix(name, decl.SubagentPrefix))
	}
	return ""
}

// warnRuntimeNotAllowed: tools.allowed is exhaustive, so a runtime tool
// the agent declares (discovery, spawn, sub-agents, router, meta bundles,
// runtime.NAME) but allowed matches not is never offered.
func (r *resolver) warnRuntimeNotAllowed(a *agentBlock, rt []string, allowed []ir.AllowEntry, aliases []ir.Alias) {
	var left []string
	for _, n := range rt {
		ok := false
		for _, e := range allowed {
			ok = ok || decl.Match(e.Pattern, n)
			for _, al := range aliases {
				ok = ok || (al.Target == n && decl.Match(e.Pattern, al.Name))
			}
		}
		if !ok {
			left = append(left, n)
		}
	}
	if len(left) > 0 {
		r.warnf(a.ToolsRange, a.DeclRange, "Runtime tool not allowed", "Agent %q declares %s, but tools.allowed matches none of them, and allowed is the whole list of what the agent offers: add them to allowed, or drop what adds them.", a.Name, quoteJoin(left))
	}
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
