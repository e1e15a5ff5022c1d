package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
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
const answer = `{"id":"msg_1","type":"message","role":"assistant","model":"bench-model","content":[` +
	`{"type":"text","text":"Reading the flags."},` +
	`{"type":"tool_use","id":"toolu_abc123","name":"server__tool_07","input":{"path":"cmd/flags.go","limit":200}}],` +
	`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":220,"cache_creation_input_tokens":0,` +
	`"cache_read_input_tokens":2900,"output_tokens":41,"service_tier":"standard"}}`

func BenchmarkConvert(b *testing.B) {
	tools := modeltest.BenchTools(20)
	ts, err := model.NewToolset(tools)
	if err != nil {
		b.Fatal(err)
	}
	history := modeltest.BenchHistory(b, "anthropic", ts)
	old, last, result := history[:len(history)-2], history[len(history)-2], history[len(history)-1]
	m := newAnthropic(model.Config{Provider: "anthropic", Name: "bench-model", APIKey: "k"})
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
				var decoded anthropic.Message
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
	history := modeltest.BenchHistory(b, "anthropic", ts)
	m, err := model.New(model.Config{Provider: "anthropic", Name: "bench-model", APIKey: "k", BaseURL: "http://model.invalid/",
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
