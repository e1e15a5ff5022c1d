package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/tools"
)

// addRuntimeTools adds the tools the agent gets from its declaration
// rather than from tools.use, with the meta tools for the scopes in force.
// Each family holds only its component of this agent context (memory,
// catalog, meta scope, spill, spawner). st.mu is held.
func (st *agentState) addRuntimeTools(meta metaScopes, add func(*entry, bool)) {
	a := st.agent
	put := func(t tools.Tool) {
		if st.res.offersRuntime(t.Name) {
			add(runtimeEntry(t), true)
		}
	}
	// The internal tools and output_read are offered only when tools.use
	// names them (runtime.NAME): the surface is what the spec says.
	if st.res.optIn[decl.ToolFinalReport] {
		put(tools.FinalReport(st.memory))
	}
	if st.res.optIn[decl.ToolTaskStatus] {
		put(tools.TaskStatus(st.memory))
	}
	if st.res.optIn[decl.ToolBatch] {
		put(tools.Batch((*batchCaller)(st)))
	}
	for _, sub := range st.res.subagents {
		desc := ""
		if sa := st.s.pool.agents[sub]; sa != nil {
			desc = sa.Description
		}
		put(tools.Subagent(sub, desc, (*spawner)(st)))
	}
	if len(a.Router) > 0 {
		put(tools.Handoff(a.Name, a.Router))
	}
	if st.res.spawn {
		put(tools.SpawnAgents((*spawner)(st)))
		put(tools.ListAgents((*spawner)(st)))
	}
	if a.Discovery {
		for _, t := range tools.Discovery((*catalog)(st)) {
			put(t)
		}
	}
	servers := sortedKeys(meta)
	if len(servers) > 0 {
		for _, t := range tools.MetaBrowse((*metaServers)(st), servers) {
			put(t)
		}
	}
	if len(servers) > 0 || a.Discovery {
		put(tools.MetaCall((*metaServers)(st)))
	}
	if st.maxBytes > 0 && st.res.optIn[decl.ToolOutputRead] {
		put(tools.OutputRead(st.spill, st.maxBytes))
	}
}

func runtimeEntry(t tools.Tool) *entry {
	return &entry{info: ToolInfo{Name: t.Name, Description: t.Description, InputSchema: t.Schema, Kind: t.Kind, Namespace: t.Namespace},
		run: provider(t.Run), linked: t.Linked, noCap: t.NoCap, noBudget: t.NoBudget}
}

// batchCaller is agent__batch's view of an agent context: its calls go
// through the whole pipeline.
type batchCaller agentState

func (c *batchCaller) Call(ctx context.Context, tool string, args json.RawMessage) json.Marshaler {
	return (*agentState)(c).call(ctx, tool, args)
}

func (c *batchCaller) Refused(reason string) json.Marshaler { return Result{Error: reason} }

// spawner is the sub-agent tools' view of an agent context.
type spawner agentState

func (sp *spawner) Spawnable() []tools.AgentInfo {
	st := (*agentState)(sp)
	var out []tools.AgentInfo
	for _, name := range st.s.pool.spawnable(st.agent) {
		info := tools.AgentInfo{Name: name}
		if a := st.s.pool.agents[name]; a != nil {
			info.Description = a.Description
		}
		out = append(out, info)
	}
	return out
}

// Run runs a child session one level deeper, with its own resolved tools,
// driven by the host's Runner, else by the built-in one (runner.go).
func (sp *spawner) Run(ctx context.Context, name, prompt string) (string, error) {
	st := (*agentState)(sp)
	opts := st.s.opts
	runner := opts.Runner
	if runner == nil {
		runner = builtinRunner{}
	}
	opts.Depth++
	opts.depthLimit = st.res.maxDepth // the parent's bound holds all the way down
	opts.Memory = nil                 // the child has its own memory
	// on the parent's Host: its pools, queues and connections
	child, err := st.s.host.Open(ctx, st.s.reg, name, opts)
	if err != nil {
		return "", fmt.Errorf("sub-agent %q: %v", name, err)
	}
	defer child.Close()
	out, err := runner.Run(ctx, child, prompt)
	if err != nil {
		return "", fmt.Errorf("sub-agent %q: %v", name, err)
	}
	return out, nil
}
