package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func finalReport(_ context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Status string `json:"status"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	switch a.Status {
	case "success", "failure", "partial":
	default:
		return "", fmt.Errorf("status must be success, failure or partial, not %q", a.Status)
	}
	st.memory.Set(MemoryFinalReport, string(args))
	return "final report recorded (status " + a.Status + ")", nil
}

func taskStatus(_ context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Status string `json:"status"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	switch a.Status {
	case "starting", "in-progress", "completed":
	default:
		return "", fmt.Errorf("status must be starting, in-progress or completed, not %q", a.Status)
	}
	st.memory.Set(MemoryTaskStatus, string(args))
	return "task status recorded (" + a.Status + ")", nil
}

type batchResult struct {
	Tool string `json:"tool"`
	Result
}

func (b batchResult) MarshalJSON() ([]byte, error) {
	r, err := b.Result.MarshalJSON()
	if err != nil {
		return nil, err
	}
	t, _ := json.Marshal(b.Tool)
	return append(append(append([]byte(`{"tool":`), t...), ','), r[1:]...), nil
}

// runBatch runs several calls in parallel through the same pipeline, each
// with its own allow check, queue, cap and budget.
func runBatch(ctx context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Calls []struct {
			Tool string          `json:"tool"`
			Args json.RawMessage `json:"args"`
		} `json:"calls"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if len(a.Calls) == 0 {
		return "", errors.New("calls is empty")
	}
	if len(a.Calls) > maxBatchCalls {
		return "", fmt.Errorf("calls has %d entries; at most %d per batch", len(a.Calls), maxBatchCalls)
	}
	out := make([]batchResult, len(a.Calls))
	parallel(len(a.Calls), batchParallel, func(i int) {
		c := a.Calls[i]
		out[i].Tool = c.Tool
		if c.Tool == decl.ToolBatch {
			out[i].Result = Result{Error: "agent__batch cannot be nested"}
			return
		}
		out[i].Result = st.call(ctx, c.Tool, c.Args)
	})
	return marshal(out)
}

// Bounds on the fan-out one model call can ask for: agent__batch and
// spawn_agents would otherwise start as many calls (processes, child
// sessions) as the model lists.
const (
	maxBatchCalls  = 64
	batchParallel  = 8
	maxSpawnAgents = 16
	spawnParallel  = 4
)

// parallel runs fn(0) … fn(n-1) with at most limit running at once.
func parallel(n, limit int, fn func(i int)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			fn(i)
		})
	}
	wg.Wait()
}

// runSubagent runs agent__<name>: a child session one level deeper, with
// its own resolved tools, driven by the host's Runner.
func runSubagent(name string) provider {
	return func(ctx context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
		var a struct {
			Prompt string `json:"prompt"`
		}
		if err := decode(args, &a); err != nil {
			return "", err
		}
		return st.runChild(ctx, name, a.Prompt)
	}
}

func (st *agentState) runChild(ctx context.Context, name, prompt string) (string, error) {
	opts := st.s.opts
	runner := opts.Runner
	if runner == nil {
		runner = builtinRunner{}
	}
	opts.Depth++
	opts.depthLimit = st.res.maxDepth // the parent's bound holds all the way down
	opts.Memory = nil                 // the child has its own memory
	child, err := Open(ctx, st.s.reg, name, opts)
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

// spawnAgents runs several sub-agents through the Runner in parallel.
func spawnAgents(ctx context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Agents []struct {
			Agent  string `json:"agent"`
			Prompt string `json:"prompt"`
		} `json:"agents"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if len(a.Agents) == 0 {
		return "", errors.New("agents is empty")
	}
	if len(a.Agents) > maxSpawnAgents {
		return "", fmt.Errorf("agents has %d entries; at most %d per call", len(a.Agents), maxSpawnAgents)
	}
	allowed := st.s.pool.spawnable(st.agent)
	for _, t := range a.Agents {
		if !slices.Contains(allowed, t.Agent) {
			return "", fmt.Errorf("agent %q cannot be spawned here; available: %v (see %s)", t.Agent, allowed, decl.ToolListAgents)
		}
	}
	type spawned struct {
		Agent  string `json:"agent"`
		OK     bool   `json:"ok"`
		Result string `json:"result,omitempty"`
		Error  string `json:"error,omitempty"`
	}
	out := make([]spawned, len(a.Agents))
	parallel(len(a.Agents), spawnParallel, func(i int) {
		t := a.Agents[i]
		res, err := st.runChild(ctx, t.Agent, t.Prompt)
		out[i] = spawned{Agent: t.Agent, OK: err == nil, Result: res}
		if err != nil {
			out[i].Error = err.Error()
		}
	})
	return marshal(out)
}

func listAgents(_ context.Context, st *agentState, _ *entry, _ json.RawMessage) (string, error) {
	type agentInfo struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
	}
	var out []agentInfo
	for _, name := range st.s.pool.spawnable(st.agent) {
		info := agentInfo{Name: name}
		if a := st.s.pool.agents[name]; a != nil {
			info.Description = a.Description
		}
		out = append(out, info)
	}
	return marshal(map[string]any{"agents": out})
}

// handoff answers router__handoff-to; the host performs the switch.
func handoff(_ context.Context, st *agentState, _ *entry, args json.RawMessage) (string, error) {
	var a struct {
		Agent   string `json:"agent"`
		Message string `json:"message"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if !slices.Contains(st.agent.Router, a.Agent) {
		return "", fmt.Errorf("agent %q is not a router destination of %q; destinations: %v", a.Agent, st.agent.Name, st.agent.Router)
	}
	return marshal(map[string]string{"handoff_to": a.Agent, "message": a.Message})
}
