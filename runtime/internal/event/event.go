// Package event names the runtime's events, the slog messages hosts and
// log pipelines match on, and logs them. Package runtime re-exports the
// names (runtime.EventToolCall …) for hosts; the runtime's internal
// packages use them from here.
package event

import (
	"context"
	"log/slog"
)

// Names: stable, for hosts and log pipelines to match on.
const (
	AgentBuild         = "agent.build"
	AgentTeardown      = "agent.teardown"
	AgentSwitchTimeout = "agent.switch_timeout"
	ToolStart          = "tool.start" // a call passed the allow check and begins (debug level)
	ToolCall           = "tool.call"
	ToolBlocked        = "tool.blocked"
	ToolUnknown        = "tool.unknown"
	ToolUnmatched      = "tool.unmatched"   // a name or glob in tools.use matched no tool when the agent was built; skipped
	ToolLateResult     = "tool.late_result" // a result that arrived after a forced teardown, discarded
	ToolCollision      = "tool.collision"   // two tools wanted one exposed name; the loser is not offered
	ServerStart        = "server.start"
	ServerFail         = "server.fail"
	ServerHealth       = "server.health"
	LockDrift          = "lock.drift"
	SubagentMaxDepth   = "subagent.max_depth"
	SecretShort        = "secret.short"          // an env() value too short to scrub
	ToolSchemaInvalid  = "tool.schema_invalid"   // a tool's input schema cannot be used: its arguments go unchecked
	ToolOutputInvalid  = "tool.output_invalid"   // an MCP tool's result breaks its output schema: the call fails
	UntrustedGlob      = "server.untrusted_glob" // a glob in an untrusted server's allow list: it matches nothing
)

// Emit logs one event if the logger wants it; attrs are built by the
// caller only after the Enabled check when they are costly.
func Emit(l *slog.Logger, level slog.Level, name string, attrs ...slog.Attr) {
	ctx := context.Background()
	if !l.Enabled(ctx, level) {
		return
	}
	l.LogAttrs(ctx, level, name, attrs...)
}

// ToolsEnriched ends a background enrichment of tools found at run time:
// tools, cached, asked, failed, tokens_in/out, and error when one stopped it.
const ToolsEnriched = "tools.enriched"
