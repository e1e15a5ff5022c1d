package openai

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

// What this provider adds to one agent-loop turn (the turn budget is 50µs
// overall); the shared harness in modeltest keeps both providers' numbers
// comparable.

// answer is one tool call, as the API sends it.
const answer = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"bench-model",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"Reading the flags.","refusal":null,"annotations":[],` +
	`"tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"server__tool_07","arguments":"{\"path\":\"cmd/flags.go\",\"limit\":200}"}}]},` +
	`"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3120,"completion_tokens":41,"total_tokens":3161,` +
	`"prompt_tokens_details":{"cached_tokens":2900,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,` +
	`"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_1"}`

func BenchmarkConvert(b *testing.B) {
	m := newOpenAI(model.Config{Provider: "openai", Name: "bench-model", APIKey: "k"})
	modeltest.BenchConvert(b, "openai", func(req *model.Request) (int, error) {
		if _, err := m.body(req); err != nil {
			return 0, err
		}
		var decoded openai.ChatCompletion
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

func BenchmarkGenerate(b *testing.B) { modeltest.BenchGenerate(b, "openai", answer) }
