package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

// What this provider adds to one agent-loop turn (the turn budget is 50µs
// overall); the shared harness in modeltest keeps both providers' numbers
// comparable.

// answer is one tool call, as the API sends it.
const answer = `{"id":"msg_1","type":"message","role":"assistant","model":"bench-model","content":[` +
	`{"type":"text","text":"Reading the flags."},` +
	`{"type":"tool_use","id":"toolu_abc123","name":"server__tool_07","input":{"path":"cmd/flags.go","limit":200}}],` +
	`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":220,"cache_creation_input_tokens":0,` +
	`"cache_read_input_tokens":2900,"output_tokens":41,"service_tier":"standard"}}`

func BenchmarkConvert(b *testing.B) {
	m := newAnthropic(model.Config{Provider: "anthropic", Name: "bench-model", APIKey: "k"})
	modeltest.BenchConvert(b, "anthropic", func(req *model.Request) (int, error) {
		if _, err := m.body(req); err != nil {
			return 0, err
		}
		var decoded anthropic.Message
		if err := json.Unmarshal([]byte(answer), &decoded); err != nil {
			return 0, err
		}
		r, err := m.response(&decoded, req)
		if err != nil {
			return 0, err
		}
		return len(r.ToolCalls), nil
	})
}

func BenchmarkGenerate(b *testing.B) { modeltest.BenchGenerate(b, "anthropic", answer) }
