package decl

import "strings"

// Names of the tools the runtime itself provides. They are the seeds'
// names and do not change with the spec's separator.
const (
	ToolSpawnAgents = "spawn_agents"
	ToolListAgents  = "list_available_agents"
	ToolHandoff     = "router__handoff-to"
	ToolFinalReport = "agent__final_report"
	ToolTaskStatus  = "agent__task_status"
	ToolBatch       = "agent__batch"
	ToolFind        = "tool_find"
	ToolDescribe    = "tool_describe"
	ToolLoad        = "tool_load"
	ToolActive      = "tool_active"
	ToolMCPList     = "mcp_list_tools"
	ToolMCPSchema   = "mcp_get_tool_schema"
	ToolMCPCall     = "mcp_call_tool"
	ToolOutputRead  = "output_read"
	// ToolSkillLoad loads a skill's SKILL.md, or one of its files, in
	// an agent's own loop (agent run) when the agent has skills.
	ToolSkillLoad = "skill_load"

	// SubagentPrefix starts the name of every sub-agent tool: agent__<name>.
	SubagentPrefix = "agent__"
)

// OptInTools are the runtime tools an agent offers only when its
// tools.use names them (runtime.<name> in a spec, UseRuntime in a
// Registry), so that the surface is what the spec says. The other runtime
// tools come with their own settings: discovery, spawn, subagents, router,
// meta bundles.
var OptInTools = []string{ToolBatch, ToolFinalReport, ToolTaskStatus, ToolOutputRead}

// IsReservedToolName reports whether name belongs to the runtime's own
// tools: the fixed names (discovery, meta, coordination, internal, router,
// output) and agent__<sub-agent>. It is the one rule: toolgen refuses a
// declared or server tool that takes such a name, the pool never exposes
// one, and nothing else is reserved.
func IsReservedToolName(name string) bool {
	switch name {
	case ToolSpawnAgents, ToolListAgents, ToolHandoff, ToolFinalReport, ToolTaskStatus, ToolBatch,
		ToolFind, ToolDescribe, ToolLoad, ToolActive, ToolMCPList, ToolMCPSchema, ToolMCPCall, ToolOutputRead, ToolSkillLoad:
		return true
	}
	return strings.HasPrefix(name, SubagentPrefix)
}

// ExposedName namespaces a server tool and keeps it inside the portable
// name set ^[a-zA-Z0-9_-]{1,64}$. toolgen uses it for locked tools, so the
// names it generates are the names agents see at run time.
func ExposedName(server, sep, tool string) string {
	name := server + sep + tool
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return string(b)
}

// Sep is the separator between a server's name and its tools' names:
// Separator, or "__" when the spec sets none.
func (r *Registry) Sep() string {
	if r.Separator == "" {
		return "__"
	}
	return r.Separator
}
