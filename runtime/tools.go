package runtime

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Input schemas of the tools the runtime provides.
var (
	schemaSubagent    = json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The task for the sub-agent."}},"required":["prompt"]}`)
	schemaSpawn       = json.RawMessage(`{"type":"object","properties":{"agents":{"type":"array","description":"Sub-agents to run in parallel, each with its own prompt.","items":{"type":"object","properties":{"agent":{"type":"string"},"prompt":{"type":"string"}},"required":["agent","prompt"]}}},"required":["agents"]}`)
	schemaNone        = json.RawMessage(`{"type":"object","properties":{}}`)
	schemaHandoff     = json.RawMessage(`{"type":"object","properties":{"agent":{"type":"string","description":"Destination agent."},"message":{"type":"string","description":"Optional advisory text for the destination."}},"required":["agent"]}`)
	schemaFinalReport = json.RawMessage(`{"type":"object","properties":{"status":{"type":"string","enum":["success","failure","partial"]},"format":{"type":"string"},"content":{"type":"string"},"content_json":{"type":"object"},"metadata":{"type":"object"}},"required":["status"]}`)
	schemaTaskStatus  = json.RawMessage(`{"type":"object","properties":{"status":{"type":"string","enum":["starting","in-progress","completed"]},"done":{"type":"string"},"pending":{"type":"string"},"now":{"type":"string"},"ready_for_final_report":{"type":"boolean"},"need_to_run_more_tools":{"type":"boolean"}},"required":["status"]}`)
	schemaBatch       = json.RawMessage(`{"type":"object","properties":{"calls":{"type":"array","items":{"type":"object","properties":{"tool":{"type":"string"},"args":{"type":"object"}},"required":["tool"]}}},"required":["calls"]}`)
	schemaFind        = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What you want to do: the action and the object, in plain words."},"limit":{"type":"integer","minimum":1,"description":"Maximum results (default 10)."}},"required":["query"]}`)
	schemaDescribe    = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	schemaLoad        = json.RawMessage(`{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["names"]}`)
	schemaMCPList     = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1}},"required":["server"]}`)
	schemaMCPSchema   = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string"},"tool":{"type":"string"}},"required":["server","tool"]}`)
	schemaMCPCall     = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"Server name; omit to call a loaded tool by its exposed name."},"tool":{"type":"string"},"args":{"type":"object"}},"required":["tool"]}`)
	schemaOutputRead  = json.RawMessage(`{"type":"object","properties":{"handle":{"type":"string"},"offset":{"type":"integer","minimum":0,"description":"Byte offset (default 0)."},"limit":{"type":"integer","minimum":1,"description":"Bytes to read."}},"required":["handle"]}`)
)

func runtimeEntry(name, desc string, kind ToolKind, ns string, schema json.RawMessage, run provider) *entry {
	return &entry{info: ToolInfo{Name: name, Description: desc, InputSchema: schema, Kind: kind, Namespace: ns}, run: run}
}

// addRuntimeTools adds the tools the agent gets from its declaration
// rather than from tools.use, with the meta tools for the scopes in force.
// st.mu is held.
func (st *agentState) addRuntimeTools(meta metaScopes, add func(*entry, bool)) {
	a := st.agent
	add(runtimeEntry(decl.ToolFinalReport, "Deliver the final answer of this task.", decl.KindInternal, "agent", schemaFinalReport, finalReport), true)
	add(runtimeEntry(decl.ToolTaskStatus, "Record task progress: what is done, pending and next.", decl.KindInternal, "agent", schemaTaskStatus, taskStatus), true)
	batch := runtimeEntry(decl.ToolBatch, "Run several tool calls in parallel; returns one result per call, in order.", decl.KindInternal, "agent", schemaBatch, runBatch)
	batch.noBudget = true
	add(batch, true)
	pool := st.s.pool
	for _, sub := range st.res.subagents {
		desc := "Run the sub-agent " + sub
		if sa := pool.agents[sub]; sa != nil && sa.Description != "" {
			desc += ": " + sa.Description
		}
		e := runtimeEntry(decl.SubagentPrefix+sub, desc, decl.KindAgent, "subagent", schemaSubagent, runSubagent(sub))
		e.linked = true
		add(e, true)
	}
	if len(a.Router) > 0 {
		add(runtimeEntry(decl.ToolHandoff, "Hand the conversation off to another agent: "+strings.Join(a.Router, ", ")+".",
			decl.KindRouter, "router", schemaHandoff, handoff), true)
	}
	if st.res.spawn {
		e := runtimeEntry(decl.ToolSpawnAgents, "Run several sub-agents in parallel, each with its own prompt.", decl.KindAgent, "agent", schemaSpawn, spawnAgents)
		e.linked = true
		add(e, true)
		add(runtimeEntry(decl.ToolListAgents, "List the agents spawn_agents can run.", decl.KindAgent, "agent", schemaNone, listAgents), true)
	}
	if a.Discovery {
		add(runtimeEntry(decl.ToolFind, "Search the tools you can load; marks the active ones. Describe the action and the object in plain words (\"delete a calendar event\", \"remember a fact about a person\").", decl.KindDiscovery, "discovery", schemaFind, toolFind), true)
		add(runtimeEntry(decl.ToolDescribe, "Describe one tool: description, input schema, category, keywords, active status.", decl.KindDiscovery, "discovery", schemaDescribe, toolDescribe), true)
		add(runtimeEntry(decl.ToolLoad, "Activate tools by name (all or none); returns their schemas.", decl.KindDiscovery, "discovery", schemaLoad, toolLoad), true)
		add(runtimeEntry(decl.ToolActive, "List the tools loaded so far.", decl.KindDiscovery, "discovery", schemaNone, toolActive), true)
	}
	servers := sortedKeys(meta)
	if len(servers) > 0 {
		scope := " Servers: " + strings.Join(servers, ", ") + "."
		add(runtimeEntry(decl.ToolMCPList, "List the tools of an MCP server (paged)."+scope, decl.KindMeta, "mcp", schemaMCPList, mcpListTools), true)
		add(runtimeEntry(decl.ToolMCPSchema, "Get the input schema of one MCP server tool."+scope, decl.KindMeta, "mcp", schemaMCPSchema, mcpGetToolSchema), true)
	}
	if len(servers) > 0 || a.Discovery {
		e := runtimeEntry(decl.ToolMCPCall, "Call an MCP server tool, or a loaded tool by name.", decl.KindMeta, "mcp", schemaMCPCall, mcpCallTool)
		add(e, true)
	}
	if st.maxBytes > 0 {
		e := runtimeEntry(decl.ToolOutputRead, fmt.Sprintf("Read a stored tool output (over %d bytes) by handle, a page at a time; continue at the next_offset each page returns.", st.maxBytes),
			decl.KindOutput, "output", schemaOutputRead, outputRead)
		e.noCap = true
		add(e, true)
	}
}

// decode unmarshals tool arguments with an error the model can act on.
func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func marshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
