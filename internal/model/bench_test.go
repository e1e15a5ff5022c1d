package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

// The agent loop's turn budget is 50µs overall; these measure what this
// package adds to one turn with 20 tools and a 10-message history, of which
// the last two (the previous answer and its tool result) are new:
//
//   - Convert: build the request body as Generate does (SDK types, joined)
//     and turn the SDK's decoded answer into a Response. Variants: "turn"
//     is the loop's way (toolset made once, messages kept encoded);
//     "literal_messages" sends Message literals, encoded every turn;
//     "toolset_every_turn" rebuilds the Toolset every turn.
//   - Generate: the whole call through the SDK against an in-memory
//     transport (headers, retry bookkeeping, decoding), without network.

func benchTools(n int) []Tool {
	tools := make([]Tool, n)
	for i := range tools {
		tools[i] = Tool{
			Name:        fmt.Sprintf("server__tool_%02d", i),
			Description: fmt.Sprintf("Tool %d: reads a file or a directory listing from the workspace and returns its text, paged.", i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Path inside the workspace"},` +
				`"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1,"maximum":1000},` +
				`"encoding":{"type":"string","enum":["utf-8","base64"]}},"required":["path"],"additionalProperties":false}`),
		}
	}
	return tools
}

// benchHistory is a real conversation: four rounds of one call and its
// result, produced by the provider against the scripted server, so the
// assistant messages carry their provider's own form.
func benchHistory(b *testing.B, provider string, ts *Toolset) []Message {
	srv := modeltest.NewServer(b)
	srv.Respond(func(*modeltest.Request) modeltest.Turn {
		return modeltest.Turn{Text: "Reading the next file.", ToolCalls: []modeltest.Call{{Name: "server__tool_03", Args: `{"path":"src/main.go","limit":200}`}}}
	})
	cfg := Config{Provider: provider, Name: "bench-model", APIKey: "k", BaseURL: srv.URL}
	if provider == "openai" {
		cfg.BaseURL = srv.OpenAIBaseURL()
	}
	m, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	msgs := []Message{{Role: User, Text: "Find where the server starts and explain the flags."}}
	for range 4 {
		resp, err := m.Generate(context.Background(), &Request{System: "sys", Messages: msgs, Tools: ts})
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, resp.Message, NewToolResult(resp.ToolCalls[0].ID,
			strings.Repeat("package main // a line of the file\n", 8), false))
	}
	return msgs
}

// Canned answers: one tool call, as each API sends it.
const (
	openAIAnswer = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"bench-model",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"Reading the flags.","refusal":null,"annotations":[],` +
		`"tool_calls":[{"id":"call_abc123","type":"function","function":{"name":"server__tool_07","arguments":"{\"path\":\"cmd/flags.go\",\"limit\":200}"}}]},` +
		`"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3120,"completion_tokens":41,"total_tokens":3161,` +
		`"prompt_tokens_details":{"cached_tokens":2900,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,` +
		`"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_1"}`
	anthropicAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"bench-model","content":[` +
		`{"type":"text","text":"Reading the flags."},` +
		`{"type":"tool_use","id":"toolu_abc123","name":"server__tool_07","input":{"path":"cmd/flags.go","limit":200}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":220,"cache_creation_input_tokens":0,` +
		`"cache_read_input_tokens":2900,"output_tokens":41,"service_tier":"standard"}}`
)

func BenchmarkConvert(b *testing.B) {
	tools := benchTools(20)
	for _, provider := range []string{"openai", "anthropic"} {
		ts, err := NewToolset(tools)
		if err != nil {
			b.Fatal(err)
		}
		history := benchHistory(b, provider, ts)
		old, answer, result := history[:len(history)-2], history[len(history)-2], history[len(history)-1]
		m, _ := New(Config{Provider: provider, Name: "bench-model", APIKey: "k"})
		for _, variant := range []string{"turn", "literal_messages", "toolset_every_turn"} {
			b.Run("provider="+provider+"/variant="+variant, func(b *testing.B) {
				msgs := append([]Message(nil), old...)
				if variant == "literal_messages" {
					for i := range msgs {
						msgs[i].wire = nil
					}
				}
				req := &Request{System: "You are a careful coding agent.", Tools: ts}
				b.ReportAllocs()
				for b.Loop() {
					// This turn's new messages, never encoded before.
					a, r := answer, result
					a.wire, r.wire = new(wire), new(wire)
					if variant == "literal_messages" {
						a.wire, r.wire = nil, nil
					}
					req.Messages = append(msgs[:len(old):len(old)], a, r)
					if variant == "toolset_every_turn" {
						req.Tools, _ = NewToolset(tools)
					}
					switch mm := m.(type) {
					case *openAIModel:
						if _, err := mm.body(req); err != nil {
							b.Fatal(err)
						}
						var cc openai.ChatCompletion
						if err := json.Unmarshal([]byte(openAIAnswer), &cc); err != nil {
							b.Fatal(err)
						}
						if r, err := mm.response(&cc, req); err != nil || len(r.ToolCalls) != 1 {
							b.Fatal(r, err)
						}
					case *anthropicModel:
						if _, err := mm.body(req); err != nil {
							b.Fatal(err)
						}
						var msg anthropic.Message
						if err := json.Unmarshal([]byte(anthropicAnswer), &msg); err != nil {
							b.Fatal(err)
						}
						if r, err := mm.response(&msg, req); err != nil || len(r.ToolCalls) != 1 {
							b.Fatal(r, err)
						}
					}
				}
			})
		}
	}
}

// cannedTransport answers every request with body, without a network.
type cannedTransport struct{ body []byte }

func (c cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)),
		Request:       r,
	}, nil
}

func BenchmarkGenerate(b *testing.B) {
	tools := benchTools(20)
	for _, provider := range []string{"openai", "anthropic"} {
		ts, err := NewToolset(tools)
		if err != nil {
			b.Fatal(err)
		}
		history := benchHistory(b, provider, ts)
		answer := openAIAnswer
		if provider == "anthropic" {
			answer = anthropicAnswer
		}
		m, err := New(Config{Provider: provider, Name: "bench-model", APIKey: "k", BaseURL: "http://model.invalid/",
			HTTPClient: &http.Client{Transport: cannedTransport{[]byte(answer)}}})
		if err != nil {
			b.Fatal(err)
		}
		old, last, result := history[:len(history)-2], history[len(history)-2], history[len(history)-1]
		b.Run("provider="+provider, func(b *testing.B) {
			msgs := append([]Message(nil), old...)
			req := &Request{System: "You are a careful coding agent.", Tools: ts}
			b.ReportAllocs()
			for b.Loop() {
				a, r := last, result
				a.wire, r.wire = new(wire), new(wire)
				req.Messages = append(msgs[:len(old):len(old)], a, r)
				resp, err := m.Generate(context.Background(), req)
				if err != nil || len(resp.ToolCalls) != 1 {
					b.Fatal(resp, err)
				}
			}
		})
	}
}
