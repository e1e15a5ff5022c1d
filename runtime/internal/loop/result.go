package loop

import (
	"encoding/json"
	"time"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// Status says how a run ended.
type Status string

const (
	// StatusCompleted: the model answered, or reported success.
	StatusCompleted Status = "completed"
	// StatusPartial: agent__final_report with status "partial"; the answer
	// is what it has.
	StatusPartial Status = "partial"
	// StatusFailed: the agent reported failure, the model refused, or the
	// run could not start.
	StatusFailed Status = "failed"
	// StatusMaxTurns: MaxTurns model calls without an answer.
	StatusMaxTurns Status = "max_turns"
	// StatusModelError: a model call failed (after the SDK's retries).
	StatusModelError Status = "model_error"
	// StatusNoModel: the agent has no model to run on.
	StatusNoModel Status = "no_model"
	// StatusCancelled: the context ended.
	StatusCancelled Status = "cancelled"
)

// Result is what a run did. `agentcli run --json` prints it.
type Result struct {
	Answer string
	Status Status
	// Agent is the agent that answered: after a handoff, the destination.
	Agent string
	// Turns counts the model calls.
	Turns int
	// Usage is the tokens of this run's model calls plus those of the
	// sub-agent runs its tool calls started.
	Usage     model.Usage
	ToolCalls []ToolCall
	// Messages is the conversation, to continue with Options.History.
	Messages []model.Message
	// Error says why the run failed; empty when Status is completed or partial.
	Error string

	err *Error
}

// ToolCall is one tool call a run made.
type ToolCall struct {
	Name    string
	Agent   string // the agent that called it
	Turn    int
	OK      bool
	Latency time.Duration
}

type resultJSON struct {
	Answer    string         `json:"answer"`
	Status    Status         `json:"status"`
	Agent     string         `json:"agent"`
	Turns     int            `json:"turns"`
	Usage     usageJSON      `json:"usage"`
	ToolCalls []toolCallJSON `json:"tool_calls"`
	Error     string         `json:"error,omitempty"`
}

type usageJSON struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
}

type toolCallJSON struct {
	Name      string  `json:"name"`
	Agent     string  `json:"agent"`
	Turn      int     `json:"turn"`
	OK        bool    `json:"ok"`
	LatencyMS float64 `json:"latency_ms"`
}

// MarshalJSON writes {answer, status, agent, turns, usage, tool_calls,
// error}; the conversation is left out.
func (r *Result) MarshalJSON() ([]byte, error) {
	j := resultJSON{Answer: r.Answer, Status: r.Status, Agent: r.Agent, Turns: r.Turns, Error: r.Error,
		Usage:     usageJSON{r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.CacheReadTokens, r.Usage.CacheWriteTokens},
		ToolCalls: make([]toolCallJSON, len(r.ToolCalls))}
	for i, c := range r.ToolCalls {
		j.ToolCalls[i] = toolCallJSON{c.Name, c.Agent, c.Turn, c.OK, ms(c.Latency)}
	}
	return json.Marshal(j)
}

// Error is a run that ended without an answer. The CLI exits 1 on it.
type Error struct {
	Status Status
	Agent  string
	Turns  int
	// Msg says what happened, for people: the model's error, the limit hit.
	Msg string
	// Err is the model's *model.Error or the context's error, when one
	// caused the failure.
	Err error
}

func (e *Error) Error() string { return "agent " + e.Agent + ": " + e.Msg }

func (e *Error) Unwrap() error { return e.Err }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
