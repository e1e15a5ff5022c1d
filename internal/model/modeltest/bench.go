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
