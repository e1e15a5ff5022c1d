package runtime

import "github.com/toolgen-dev/toolgen/runtime/internal/event"

// Event names: stable, for hosts and log pipelines to match on. Each is the
// message of a slog record on Options.Logger.
const (
	EventAgentBuild         = event.AgentBuild
	EventAgentTeardown      = event.AgentTeardown
	EventAgentSwitchTimeout = event.AgentSwitchTimeout
	EventToolStart          = event.ToolStart // a call passed the allow check and begins (debug level)
	EventToolCall           = event.ToolCall
	EventToolBlocked        = event.ToolBlocked
	EventToolUnknown        = event.ToolUnknown
	EventToolUnmatched      = event.ToolUnmatched  // a name or glob in tools.use matched no tool when the agent was built; skipped
	EventToolLateResult     = event.ToolLateResult // a result that arrived after a forced teardown, discarded
	EventToolCollision      = event.ToolCollision  // two tools wanted one exposed name; the loser is not offered
	EventServerStart        = event.ServerStart
	EventServerFail         = event.ServerFail
	EventServerHealth       = event.ServerHealth
	EventLockDrift          = event.LockDrift
	EventSubagentMaxDepth   = event.SubagentMaxDepth
	EventSecretShort        = event.SecretShort       // an env() value too short to scrub
	EventToolSchemaInvalid  = event.ToolSchemaInvalid // a tool's input schema cannot be used: its arguments go unchecked
	EventToolOutputInvalid  = event.ToolOutputInvalid // an MCP tool's result breaks its output schema: the call fails
	EventUntrustedGlob      = event.UntrustedGlob     // a glob in an untrusted server's allow list: it matches nothing
	EventToolsEnriched      = event.ToolsEnriched     // a background enrichment of tools found at run time ended
)
