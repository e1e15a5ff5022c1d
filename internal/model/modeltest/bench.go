package modeltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// The providers' benchmarks share their tools, history and transport, so
// their numbers compare.

// BenchTools are n tools with a realistic schema.
func BenchTools(n int) []model.Tool {
	tools := make([]model.Tool, n)
	for i := range tools {
		tools[i] = model.Tool{
			Name:        fmt.Sprintf("server__tool_%02d", i),
			Description: fmt.Sprintf("Tool %d: reads a file or a directory listing from the workspace and returns its text, paged.", i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Path inside the workspace"},` +
				`"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1,"maximum":1000},` +
				`"encoding":{"type":"string","enum":["utf-8","base64"]}},"required":["path"],"additionalProperties":false}`),
		}
	}
	return tools
}

// BenchHistory is a real conversation: four rounds of one call and its
// result, produced by the provider (which the caller links) against the
// scripted server, so the assistant messages carry their provider's form.
func BenchHistory(b *testing.B, provider string, ts *model.Toolset) []model.Message {
	srv := NewServer(b)
	srv.Respond(func(*Request) Turn {
		return Turn{Text: "Reading the next file.", ToolCalls: []Call{{Name: "server__tool_03", Args: `{"path":"src/main.go","limit":200}`}}}
	})
	cfg := model.Config{Provider: provider, Name: "bench-model", APIKey: "k", BaseURL: srv.URL}
	if provider == "openai" {
		cfg.BaseURL = srv.OpenAIBaseURL()
	}
	m, err := model.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	msgs := []model.Message{{Role: model.User, Text: "Find where the server starts and explain the flags."}}
	for range 4 {
		resp, err := m.Generate(context.Background(), &model.Request{System: "sys", Messages: msgs, Tools: ts})
		if err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, resp.Message, model.NewToolResult(resp.ToolCalls[0].ID,
			strings.Repeat("package main // a line of the file\n", 8), false))
	}
	return msgs
}

// Literal is m as a Message literal would be: without a kept encoding.
func Literal(m model.Message) model.Message {
	return model.Message{Role: m.Role, Text: m.Text, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, IsError: m.IsError, Raw: m.Raw}
}

// CannedTransport answers every request with Body, without a network.
type CannedTransport struct{ Body []byte }

func (c CannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(c.Body)),
		ContentLength: int64(len(c.Body)),
		Request:       r,
	}, nil
}

// BenchConvert measures what a provider adds to one turn with 20 tools and
// a 10-message history, of which the last two (the previous answer and its
// tool result) are new: build the request body as Generate does and turn
// the provider's decoded answer into a Response. convert does both for the
// provider and returns how many tool calls it read. Variants: "turn" is the
// loop's way (toolset made once, messages kept encoded); "literal_messages"
// sends Message literals, encoded every turn; "toolset_every_turn" rebuilds
// the Toolset every turn.
func BenchConvert(b *testing.B, provider string, convert func(*model.Request) (int, error)) {
	tools := BenchTools(20)
	ts, err := model.NewToolset(tools)
	if err != nil {
		b.Fatal(err)
	}
	history := BenchHistory(b, provider, ts)
	old, last, result := history[:len(history)-2], history[len(history)-2], history[len(history)-1]
	for _, variant := range []string{"turn", "literal_messages", "toolset_every_turn"} {
		b.Run("variant="+variant, func(b *testing.B) {
			msgs := append([]model.Message(nil), old...)
			if variant == "literal_messages" {
				for i := range msgs {
					msgs[i] = Literal(msgs[i])
				}
			}
			req := &model.Request{System: "You are a careful coding agent.", Tools: ts}
			b.ReportAllocs()
			for b.Loop() {
				// This turn's new messages, never encoded before.
				a, r := model.Keep(last), model.Keep(result)
				if variant == "literal_messages" {
					a, r = Literal(last), Literal(result)
				}
				req.Messages = append(msgs[:len(old):len(old)], a, r)
				if variant == "toolset_every_turn" {
					req.Tools, _ = model.NewToolset(tools)
				}
				if n, err := convert(req); err != nil || n != 1 {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// BenchGenerate measures the whole call through the provider's SDK against
// an in-memory transport that answers with answer (headers, retry
// bookkeeping, decoding), without network.
func BenchGenerate(b *testing.B, provider, answer string) {
	ts, err := model.NewToolset(BenchTools(20))
	if err != nil {
		b.Fatal(err)
	}
	history := BenchHistory(b, provider, ts)
	m, err := model.New(model.Config{Provider: provider, Name: "bench-model", APIKey: "k", BaseURL: "http://model.invalid/",
		HTTPClient: &http.Client{Transport: CannedTransport{Body: []byte(answer)}}})
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
