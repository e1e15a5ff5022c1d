package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Memory keys the agent tools write.
const (
	MemoryFinalReport = "agent.final_report"
	MemoryTaskStatus  = "agent.task_status"
)

// Memory is where final_report and task_status record what the model said.
type Memory interface {
	Set(key, value string)
}

type finalReportArgs struct {
	Status      string         `json:"status"`
	Format      string         `json:"format,omitempty"`
	Content     string         `json:"content,omitempty"`
	ContentJSON map[string]any `json:"content_json,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

var finalStatuses = []string{"success", "failure", "partial"}

var finalReportSchema = schemaOf[finalReportArgs](func(s *jsonschema.Schema) {
	s.Properties["status"].Enum = enum(finalStatuses...)
})

// FinalReport records the task's final answer in mem.
func FinalReport(mem Memory) Tool {
	return recorder(decl.ToolFinalReport, "Deliver the final answer of this task.", finalReportSchema, finalStatuses,
		mem, MemoryFinalReport, func(status string) string { return "final report recorded (status " + status + ")" })
}

type taskStatusArgs struct {
	Status              string `json:"status"`
	Done                string `json:"done,omitempty"`
	Pending             string `json:"pending,omitempty"`
	Now                 string `json:"now,omitempty"`
	ReadyForFinalReport bool   `json:"ready_for_final_report,omitempty"`
	NeedToRunMoreTools  bool   `json:"need_to_run_more_tools,omitempty"`
}

var taskStatuses = []string{"starting", "in-progress", "completed"}

var taskStatusSchema = schemaOf[taskStatusArgs](func(s *jsonschema.Schema) {
	s.Properties["status"].Enum = enum(taskStatuses...)
})

// TaskStatus records the task's progress in mem.
func TaskStatus(mem Memory) Tool {
	return recorder(decl.ToolTaskStatus, "Record task progress: what is done, pending and next.", taskStatusSchema, taskStatuses,
		mem, MemoryTaskStatus, func(status string) string { return "task status recorded (" + status + ")" })
}

// recorder is a tool that checks its status argument against statuses
// (the schema's enum, from the same list) and stores its arguments under
// key in mem.
func recorder(name, desc string, schema json.RawMessage, statuses []string, mem Memory, key string, done func(status string) string) Tool {
	return Tool{
		Name: name, Description: desc, Kind: decl.KindInternal, Namespace: "agent", Schema: schema,
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct {
				Status string `json:"status"`
			}
			if err := decode(args, &a); err != nil {
				return "", err
			}
			if !slices.Contains(statuses, a.Status) {
				last := len(statuses) - 1
				return "", fmt.Errorf("status must be %s or %s, not %q", strings.Join(statuses[:last], ", "), statuses[last], a.Status)
			}
			mem.Set(key, string(args)) // as sent: fields the schema does not list are kept
			return done(a.Status), nil
		},
	}
}

// Caller runs one call of a batch through the session's pipeline, with its
// own allow check, queue, cap and budget.
type Caller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) json.Marshaler
	// Refused is the result of a call the batch did not make.
	Refused(reason string) json.Marshaler
}

type batchArgs struct {
	Calls []batchCall `json:"calls"`
}

type batchCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args,omitempty"`
}

var batchSchema = schemaOf[batchArgs](nil)

// Bounds on the fan-out one model call can ask for: batch and spawn_agents
// would otherwise start as many calls (processes, child sessions) as the
// model lists.
const (
	maxBatchCalls  = 64
	batchParallel  = 8
	maxSpawnAgents = 16
	spawnParallel  = 4
)

// batchResult is a call's result with the tool's name first.
type batchResult struct {
	Tool   string
	Result json.Marshaler
}

func (b batchResult) MarshalJSON() ([]byte, error) {
	r, err := b.Result.MarshalJSON()
	if err != nil {
		return nil, err
	}
	t, _ := json.Marshal(b.Tool)
	return append(append(append([]byte(`{"tool":`), t...), ','), r[1:]...), nil
}

// Batch runs several calls in parallel through c; one result per call, in order.
func Batch(c Caller) Tool {
	return Tool{
		Name: decl.ToolBatch, Description: "Run several tool calls in parallel; returns one result per call, in order.",
		Kind: decl.KindInternal, Namespace: "agent", Schema: batchSchema, NoBudget: true,
		Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			var a batchArgs
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
				call := a.Calls[i]
				out[i].Tool = call.Tool
				if call.Tool == decl.ToolBatch {
					out[i].Result = c.Refused(decl.ToolBatch + " cannot be nested")
					return
				}
				out[i].Result = c.Call(ctx, call.Tool, call.Args)
			})
			return marshal(out)
		},
	}
}

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

// Spawner runs sub-agents: child sessions one level deeper, driven by the
// host's Runner.
type Spawner interface {
	Run(ctx context.Context, agent, prompt string) (string, error)
	// Spawnable lists the agents spawn_agents may run, in order.
	Spawnable() []AgentInfo
}

// AgentInfo is one agent list_agents shows.
type AgentInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type subagentArgs struct {
	Prompt string `json:"prompt" jsonschema:"The task for the sub-agent."`
}

var subagentSchema = schemaOf[subagentArgs](nil)

// Subagent is agent__<name>: it runs that sub-agent with a prompt.
// description is the sub-agent's own, if it has one.
func Subagent(name, description string, sp Spawner) Tool {
	desc := "Run the sub-agent " + name
	if description != "" {
		desc += ": " + description
	}
	return Tool{
		Name: decl.SubagentPrefix + name, Description: desc,
		Kind: decl.KindAgent, Namespace: "subagent", Schema: subagentSchema, Linked: true,
		Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			var a subagentArgs
			if err := decode(args, &a); err != nil {
				return "", err
			}
			return sp.Run(ctx, name, a.Prompt)
		},
	}
}

type spawnArgs struct {
	Agents []spawnTask `json:"agents" jsonschema:"Sub-agents to run in parallel, each with its own prompt."`
}

type spawnTask struct {
	Agent  string `json:"agent"`
	Prompt string `json:"prompt"`
}

var spawnSchema = schemaOf[spawnArgs](nil)

// SpawnAgents runs several sub-agents in parallel and returns one result
// per child, in order; it is an error only when every child failed.
func SpawnAgents(sp Spawner) Tool {
	return Tool{
		Name: decl.ToolSpawnAgents, Description: "Run several sub-agents in parallel, each with its own prompt.",
		Kind: decl.KindAgent, Namespace: "agent", Schema: spawnSchema, Linked: true,
		Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			var a spawnArgs
			if err := decode(args, &a); err != nil {
				return "", err
			}
			if len(a.Agents) == 0 {
				return "", errors.New("agents is empty")
			}
			if len(a.Agents) > maxSpawnAgents {
				return "", fmt.Errorf("agents has %d entries; at most %d per call", len(a.Agents), maxSpawnAgents)
			}
			var allowed []string
			for _, ag := range sp.Spawnable() {
				allowed = append(allowed, ag.Name)
			}
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
				res, err := sp.Run(ctx, t.Agent, t.Prompt)
				out[i] = spawned{Agent: t.Agent, OK: err == nil, Result: res}
				if err != nil {
					out[i].Error = err.Error()
				}
			})
			text, err := marshal(out)
			if err != nil {
				return "", err
			}
			// One result per child; the call fails only when no child
			// answered, so that the model sees a partial success as one.
			if !slices.ContainsFunc(out, func(s spawned) bool { return s.OK }) {
				return "", fmt.Errorf("all %d sub-agents failed: %s", len(out), text)
			}
			return text, nil
		},
	}
}

// ListAgents lists the agents SpawnAgents can run.
func ListAgents(sp Spawner) Tool {
	return Tool{
		Name: decl.ToolListAgents, Description: "List the agents spawn_agents can run.",
		Kind: decl.KindAgent, Namespace: "agent", Schema: noArgs,
		Run: func(context.Context, json.RawMessage) (string, error) {
			return marshal(map[string]any{"agents": sp.Spawnable()})
		},
	}
}

type handoffArgs struct {
	Agent   string `json:"agent" jsonschema:"Destination agent."`
	Message string `json:"message,omitempty" jsonschema:"Optional advisory text for the destination."`
}

var handoffSchema = schemaOf[handoffArgs](nil)

// Handoff is router__handoff-to for agent from: it checks and names the
// destination; the session switches to it once the call has ended
// (Session.Call), so that the call does not wait on its own teardown.
func Handoff(from string, destinations []string) Tool {
	return Tool{
		Name:        decl.ToolHandoff,
		Description: "Hand the conversation off to another agent, which continues it with its own tools: " + strings.Join(destinations, ", ") + ".",
		Kind:        decl.KindRouter, Namespace: "router", Schema: handoffSchema,
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var a handoffArgs
			if err := decode(args, &a); err != nil {
				return "", err
			}
			if !slices.Contains(destinations, a.Agent) {
				return "", fmt.Errorf("agent %q is not a router destination of %q; destinations: %v", a.Agent, from, destinations)
			}
			return marshal(map[string]string{"handoff_to": a.Agent, "message": a.Message})
		},
	}
}
