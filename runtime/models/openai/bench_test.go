package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

// The agent loop's turn budget is 50µs overall; these measure what this
// provider adds to one turn with 20 tools and a 10-message history, of which
// the last two (the previous answer and its tool result) are new:
//
//   - Convert: build the request body as Generate does (SDK types, joined)
//     and turn the SDK's decoded answer into a Response. Variants: "turn"
//     is the loop's way (toolset made once, messages kept encoded);
//     "literal_messages" sends Message literals, encoded every turn;
//     "toolset_every_turn" rebuilds the Toolset every turn.
//   - Generate: the whole call through the SDK against an in-memory
//     transport (headers, retry bookkeeping, decoding), without network.

// answer is one tool call, as the API sends it.
const answer = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"bench-model",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"Reading the flags.","refusal":null,"annotations":[],` +
	`"tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"server__tool_07","arguments":"{\"path\":\"cmd/flags.go\",\"limit\":200}"}}]},` +
	`"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3120,"completion_tokens":41,"total_tokens":3161,` +
	`"prompt_tokens_details":{"cached_tokens":2900,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,` +
	`"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_1"}`

func BenchmarkConvert(b *testing.B) {
	tools := modeltest.BenchTools(20)
	ts, err := model.NewToolset(tools)
	if err != nil {
		b.Fatal(err)
	}
	history := modeltest.BenchHistory(b, "openai", ts)
	old, last, result := history[:len(history)-2], history[len(history)-2], history[len(history)-1]
	m := newOpenAI(model.Config{Provider: "openai", Name: "bench-model", APIKey: "k"})
	for _, variant := range []string{"turn", "literal_messages", "toolset_every_turn"} {
		b.Run("variant="+variant, func(b *testing.B) {
			msgs := append([]model.Message(nil), old...)
			if variant == "literal_messages" {
				for i := range msgs {
					msgs[i] = modeltest.Literal(msgs[i])
				}
			}
			req := &model.Request{System: "You are a careful coding agent.", Tools: ts}
			b.ReportAllocs()
			for b.Loop() {
				// This turn's new messages, never encoded before.
				a, r := model.Keep(last), model.Keep(result)
				if variant == "literal_messages" {
					a, r = modeltest.Literal(last), modeltest.Literal(result)
				}
				req.Messages = append(msgs[:len(old):len(old)], a, r)
				if variant == "toolset_every_turn" {
					req.Tools, _ = model.NewToolset(tools)
				}
				if _, err := m.body(req); err != nil {
					b.Fatal(err)
				}
				var decoded openai.ChatCompletion
				if err := json.Unmarshal([]byte(answer), &decoded); err != nil {
					b.Fatal(err)
				}
				if r, err := m.response(&decoded, req); err != nil || len(r.ToolCalls) != 1 {
					b.Fatal(r, err)
				}
			}
		})
	}
}

func BenchmarkGenerate(b *testing.B) {
	ts, err := model.NewToolset(modeltest.BenchTools(20))
	if err != nil {
		b.Fatal(err)
	}
	history := modeltest.BenchHistory(b, "openai", ts)
	m, err := model.New(model.Config{Provider: "openai", Name: "bench-model", APIKey: "k", BaseURL: "http://model.invalid/",
		HTTPClient: &http.Client{Transport: modeltest.CannedTransport{Body: []byte(answer)}}})
	if err != nil {
		b.Fatal(err)
	}
	old, last, result := history[:len(history)-2], history[len(history)-2], history[len(history)-1]
	msgs := append([]model.Message(nil), old...)
	req := &model.Request{System: "You are a careful coding agent.", Tools: ts}
	b.ReportAllocs()
	for b.Loop() {
		req.Messages = append(msgs[:len(old):len(old)], model.Keep(last), model.Keep(result))
		resp, err := m.Generate(context.Background(), req)
		if err != nil || len(resp.ToolCalls) != 1 {
			b.Fatal(resp, err)
		}
	}
}
