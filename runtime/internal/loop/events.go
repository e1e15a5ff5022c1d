package loop

import (
	"log/slog"
	"time"

	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
)

// Event names, stable like the runtime's: hosts and log pipelines match on them.
const (
	EventTurn         = event.AgentTurn
	EventModelRequest = event.ModelRequest
	EventHandoff      = event.AgentHandoff
	EventRun          = event.AgentRun
	EventToolSkipped  = event.ModelToolSkipped
)

// Nothing here logs a request or a key: errors come from internal/model
// already scrubbed, and requests are never logged.

func (r *run) logModel(turn int, d time.Duration, resp *model.Response, err error) {
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
	}
	if !r.log.Enabled(r.ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.String("model", r.label), slog.String("agent", r.name), slog.Int("turn", turn), {}, slog.Float64("latency_ms", ms(d))}
	if err != nil {
		status := "error"
		if r.ctx.Err() != nil {
			status = "cancelled"
		}
		attrs[3] = slog.String("status", status)
		attrs = append(attrs, slog.String("error", err.Error()))
	} else {
		attrs[3] = slog.String("status", "ok")
		attrs = append(attrs, slog.Int64("tokens_in", resp.Usage.InputTokens), slog.Int64("tokens_out", resp.Usage.OutputTokens),
			slog.Int64("cache_read_tokens", resp.Usage.CacheReadTokens), slog.String("stop_reason", resp.StopReason))
	}
	r.log.LogAttrs(r.ctx, level, EventModelRequest, attrs...)
}

func (r *run) logTurn(turn, calls int, own, sub model.Usage, d time.Duration) {
	if !r.log.Enabled(r.ctx, slog.LevelInfo) {
		return
	}
	attrs := []slog.Attr{slog.String("agent", r.name), slog.Int("turn", turn), slog.Int("tool_calls", calls),
		slog.Int64("tokens_in", own.InputTokens), slog.Int64("tokens_out", own.OutputTokens), slog.Float64("latency_ms", ms(d))}
	if sub != (model.Usage{}) {
		attrs = append(attrs, slog.Int64("subagent_tokens_in", sub.InputTokens), slog.Int64("subagent_tokens_out", sub.OutputTokens))
	}
	r.log.LogAttrs(r.ctx, slog.LevelInfo, EventTurn, attrs...)
}

func (r *run) logRun(res *Result) {
	level := slog.LevelInfo
	if res.err != nil {
		level = slog.LevelWarn
	}
	if !r.log.Enabled(r.ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.String("agent", res.Agent), slog.String("status", string(res.Status)), slog.Int("turns", res.Turns),
		slog.Int("tool_calls", len(res.ToolCalls)), slog.Int64("tokens_in", res.Usage.InputTokens), slog.Int64("tokens_out", res.Usage.OutputTokens),
		slog.Float64("latency_ms", ms(time.Since(r.start)))}
	if res.err != nil {
		attrs = append(attrs, slog.String("error", res.err.Msg))
	}
	r.log.LogAttrs(r.ctx, level, EventRun, attrs...)
}
