package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The schemas the runtime wrote by hand before they were derived from the
// args structs: the derived ones must say the same (types, descriptions,
// required fields, enums, bounds).
var handWritten = map[string]string{
	"subagent":     `{"type":"object","properties":{"prompt":{"type":"string","description":"The task for the sub-agent."}},"required":["prompt"]}`,
	"spawn":        `{"type":"object","properties":{"agents":{"type":"array","description":"Sub-agents to run in parallel, each with its own prompt.","items":{"type":"object","properties":{"agent":{"type":"string"},"prompt":{"type":"string"}},"required":["agent","prompt"]}}},"required":["agents"]}`,
	"none":         `{"type":"object","properties":{}}`,
	"handoff":      `{"type":"object","properties":{"agent":{"type":"string","description":"Destination agent."},"message":{"type":"string","description":"Optional advisory text for the destination."}},"required":["agent"]}`,
	"final_report": `{"type":"object","properties":{"status":{"type":"string","enum":["success","failure","partial"]},"format":{"type":"string"},"content":{"type":"string"},"content_json":{"type":"object"},"metadata":{"type":"object"}},"required":["status"]}`,
	"task_status":  `{"type":"object","properties":{"status":{"type":"string","enum":["starting","in-progress","completed"]},"done":{"type":"string"},"pending":{"type":"string"},"now":{"type":"string"},"ready_for_final_report":{"type":"boolean"},"need_to_run_more_tools":{"type":"boolean"}},"required":["status"]}`,
	"batch":        `{"type":"object","properties":{"calls":{"type":"array","items":{"type":"object","properties":{"tool":{"type":"string"},"args":{"type":"object"}},"required":["tool"]}}},"required":["calls"]}`,
	"find":         `{"type":"object","properties":{"query":{"type":"string","description":"What you want to do: the action and the object, in plain words."},"limit":{"type":"integer","minimum":1,"description":"Maximum results (default 10)."}},"required":["query"]}`,
	"describe":     `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
	"load":         `{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["names"]}`,
	"mcp_list":     `{"type":"object","properties":{"server":{"type":"string"},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1}},"required":["server"]}`,
	"mcp_schema":   `{"type":"object","properties":{"server":{"type":"string"},"tool":{"type":"string"}},"required":["server","tool"]}`,
	"mcp_call":     `{"type":"object","properties":{"server":{"type":"string","description":"Server name; omit to call a loaded tool by its exposed name."},"tool":{"type":"string"},"args":{"type":"object"}},"required":["tool"]}`,
	"output_read":  `{"type":"object","properties":{"handle":{"type":"string"},"offset":{"type":"integer","minimum":0,"description":"Byte offset (default 0)."},"limit":{"type":"integer","minimum":1,"description":"Bytes to read."}},"required":["handle"]}`,
}

func TestSchemasMatchHandWritten(t *testing.T) {
	derived := map[string]json.RawMessage{
		"subagent": subagentSchema, "spawn": spawnSchema, "none": noArgs, "handoff": handoffSchema,
		"final_report": finalReportSchema, "task_status": taskStatusSchema, "batch": batchSchema,
		"find": findSchema, "describe": describeSchema, "load": loadSchema,
		"mcp_list": mcpListSchema, "mcp_schema": mcpSchemaSchema, "mcp_call": mcpCallSchema,
		"output_read": outputReadSchema,
	}
	for name, want := range handWritten {
		var w, g any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(derived[name], &g); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := cmp.Diff(w, g); d != "" {
			t.Errorf("%s schema (-hand-written +derived):\n%s", name, d)
		}
	}
}

// Every tool's schema is the one its constructor hands out.
func TestToolsCarryDerivedSchemas(t *testing.T) {
	var all []Tool
	all = append(all, FinalReport(nil), TaskStatus(nil), Batch(nil), Subagent("a", "", nil), SpawnAgents(nil), ListAgents(nil), Handoff("a", []string{"b"}), MetaCall(nil), OutputRead(nil, 10))
	all = append(all, Discovery(nil)...)
	all = append(all, MetaBrowse(nil, []string{"s"})...)
	for _, tool := range all {
		var v map[string]any
		if err := json.Unmarshal(tool.Schema, &v); err != nil || v["type"] != "object" {
			t.Errorf("%s: schema %s (%v)", tool.Name, tool.Schema, err)
		}
		if tool.Run == nil {
			t.Errorf("%s: no handler", tool.Name)
		}
	}
	// a handler needs only its component: a decode error never reaches it
	if _, err := Batch(nil).Run(context.Background(), json.RawMessage(`{"calls":3}`)); err == nil {
		t.Error("batch accepted calls:3")
	}
}
