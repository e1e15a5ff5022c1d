package runtime

import (
	"context"
	"log/slog"
)

// Event names: stable, for hosts and log pipelines to match on.
const (
	EventAgentBuild         = "agent.build"
	EventAgentTeardown      = "agent.teardown"
	EventAgentSwitchTimeout = "agent.switch_timeout"
	EventToolCall           = "tool.call"
	EventToolBlocked        = "tool.blocked"
	EventToolUnknown        = "tool.unknown"
	EventToolLateResult     = "tool.late_result" // a result that arrived after a forced teardown, discarded
	EventToolCollision      = "tool.collision"   // two tools wanted one exposed name; the loser is not offered
	EventServerStart        = "server.start"
	EventServerFail         = "server.fail"
	EventServerHealth       = "server.health"
	EventLockDrift          = "lock.drift"
	EventSubagentMaxDepth   = "subagent.max_depth"
	EventSecretShort        = "secret.short"          // an env() value too short to scrub
	EventToolSchemaInvalid  = "tool.schema_invalid"   // a tool's input schema cannot be used: its arguments go unchecked
	EventUntrustedGlob      = "server.untrusted_glob" // a glob in an untrusted server's allow list: it matches nothing
)

// emit logs one event if the logger wants it; attrs are built by the
// caller only after the Enabled check when they are costly.
func emit(l *slog.Logger, level slog.Level, event string, attrs ...slog.Attr) {
	ctx := context.Background()
	if !l.Enabled(ctx, level) {
		return
	}
	l.LogAttrs(ctx, level, event, attrs...)
}
