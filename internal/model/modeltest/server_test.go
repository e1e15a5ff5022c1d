package modeltest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

type sseEvent struct {
	name string
	data string
}

func readSSE(t *testing.T, body string) []sseEvent {
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[len("data: "):]
		default:
			t.Fatalf("not an SSE line: %q", line)
		}
	}
	return out
}

var anthropicHeader = map[string]string{"Anthropic-Version": "2023-06-01", "X-Api-Key": "k"}

// The OpenAI stream as the API sends it: data-only events, the role first,
// each call's id and name once and its arguments over several chunks,
// usage null until a last chunk with no choices, then [DONE].
func TestOpenAIStreamShape(t *testing.T) {
	srv := NewServer(t, Turn{ToolCalls: []Call{{Name: "a", Args: `{"path":"one.txt"}`}, {Name: "b", Args: `{"path":"two.txt"}`}}})
	res, body := post(t, srv.OpenAIBaseURL()+"/chat/completions", map[string]string{"Authorization": "Bearer k"},
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	events := readSSE(t, body)
	if last := events[len(events)-1]; last.data != "[DONE]" || last.name != "" {
		t.Fatalf("last event %+v, want [DONE]", last)
	}
	type chunk struct {
		Object  string `json:"object"`
		Choices []struct {
			Delta struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string  `json:"name"`
						Arguments *string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	args := map[int][]string{}
	names := map[int]string{}
	var finish string
	for i, e := range events[:len(events)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(e.data), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("event %d: %s (%v)", i, e.data, err)
		}
		if i == 0 && c.Choices[0].Delta.Role != "assistant" {
			t.Errorf("first chunk has no role: %s", e.data)
		}
		if i == len(events)-2 {
			if len(c.Choices) != 0 || !strings.Contains(string(c.Usage), `"prompt_tokens"`) {
				t.Errorf("last chunk %s, want usage and no choices", e.data)
			}
			continue
		}
		if string(c.Usage) != "null" {
			t.Errorf("chunk %d has usage %s before the end", i, c.Usage)
		}
		if f := c.Choices[0].FinishReason; f != nil {
			finish = *f
		}
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			if tc.ID != "" {
				names[tc.Index] = tc.Function.Name
			}
			if tc.Function.Arguments != nil && *tc.Function.Arguments != "" {
				args[tc.Index] = append(args[tc.Index], *tc.Function.Arguments)
			}
		}
	}
	if finish != "tool_calls" || names[0] != "a" || names[1] != "b" {
		t.Errorf("finish %q, names %v", finish, names)
	}
	for i, want := range []string{`{"path":"one.txt"}`, `{"path":"two.txt"}`} {
		if len(args[i]) < 2 || strings.Join(args[i], "") != want {
			t.Errorf("call %d arguments came as %q, want %s split over chunks", i, args[i], want)
		}
	}
}

// The Anthropic stream as the API sends it: named events whose data type
// matches, blocks opened, filled and closed by index, tool input as partial
// JSON over several deltas, and the final usage in message_delta.
func TestAnthropicStreamShape(t *testing.T) {
	srv := NewServer(t, Turn{Thinking: "think", Text: "Sure.", ToolCalls: []Call{{Name: "a", Args: `{"path":"one.txt"}`}}})
	_, body := post(t, srv.AnthropicBaseURL()+"/v1/messages", anthropicHeader,
		`{"model":"m","max_tokens":100,"stream":true,"tools":[{"name":"a","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"}]}`)
	events := readSSE(t, body)
	var names []string
	var partial []string
	for _, e := range events {
		var d struct {
			Type  string `json:"type"`
			Index int    `json:"index"`
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Usage struct {
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(e.data), &d); err != nil || d.Type != e.name {
			t.Fatalf("event %q carries %s", e.name, e.data)
		}
		names = append(names, e.name)
		if d.Delta.Type == "input_json_delta" && d.Delta.PartialJSON != "" {
			partial = append(partial, d.Delta.PartialJSON)
		}
		if e.name == "message_delta" && (d.Delta.StopReason != "tool_use" || d.Usage.OutputTokens == 0) {
			t.Errorf("message_delta %s", e.data)
		}
	}
	seq := strings.Join(names, " ")
	for _, want := range []string{
		"message_start ping content_block_start content_block_delta",
		"content_block_stop message_delta message_stop",
	} {
		if !strings.Contains(seq, want) {
			t.Errorf("events %s lack %q", seq, want)
		}
	}
	if strings.Count(seq, "content_block_start") != 3 || strings.Count(seq, "content_block_stop") != 3 {
		t.Errorf("want 3 blocks (thinking, text, tool_use): %s", seq)
	}
	if len(partial) < 2 || strings.Join(partial, "") != `{"path":"one.txt"}` {
		t.Errorf("tool input came as %q", partial)
	}
}

// What the real APIs refuse, this server refuses too, in their error shape.
func TestRefusals(t *testing.T) {
	anthropicUse := `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}},{"type":"tool_use","id":"t2","name":"a","input":{}}]}`
	tools := `"tools":[{"name":"a","input_schema":{"type":"object"}}]`
	for _, c := range []struct {
		name, format, body, want string
		header                   map[string]string
	}{
		{"openai unknown field", "openai", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokenz":5}`,
			"Unrecognized request argument supplied: max_tokenz", nil},
		{"openai unanswered call", "openai", `{"model":"m","messages":[{"role":"user","content":"hi"},
			{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"a","arguments":"{}"}}]},
			{"role":"user","content":"and?"}]}`, "did not have response messages: c1", nil},
		{"openai result without call", "openai", `{"model":"m","messages":[{"role":"user","content":"hi"},
			{"role":"tool","tool_call_id":"c9","content":"x"}]}`, "must be a response to a preceeding message with 'tool_calls'", nil},
		{"anthropic no version", "anthropic", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			"anthropic-version: header is required", map[string]string{"X-Api-Key": "k"}},
		{"anthropic no max_tokens", "anthropic", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "max_tokens: Field required", anthropicHeader},
		{"anthropic unknown field", "anthropic", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"foo":1}`,
			"foo: Extra inputs are not permitted", anthropicHeader},
		{"anthropic result missing", "anthropic", `{"model":"m","max_tokens":5,` + tools + `,"messages":[{"role":"user","content":"hi"},` + anthropicUse +
			`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`,
			"`tool_use` ids were found without `tool_result` blocks immediately after: t2", anthropicHeader},
		{"anthropic result before text", "anthropic", `{"model":"m","max_tokens":5,` + tools + `,"messages":[{"role":"user","content":"hi"},` + anthropicUse +
			`,{"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"t1"},{"type":"tool_result","tool_use_id":"t2"}]}]}`,
			"tool_result blocks must come first", anthropicHeader},
		{"anthropic tools undeclared", "anthropic", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},` + anthropicUse +
			`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"},{"type":"tool_result","tool_use_id":"t2"}]}]}`,
			"must define tools", anthropicHeader},
		{"anthropic forged thinking", "anthropic", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"sig_forged"},{"type":"text","text":"x"}]},
			{"role":"user","content":"go on"}]}`, "Invalid `signature` in `thinking` block", anthropicHeader},
		{"anthropic empty text", "anthropic", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`,
			"text content blocks must be non-empty", anthropicHeader},
		{"anthropic five breakpoints", "anthropic", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[` +
			strings.Repeat(`{"type":"text","text":"x","cache_control":{"type":"ephemeral"}},`, 4) +
			`{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}]}`, "A maximum of 4 blocks with cache_control", anthropicHeader},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := NewServer(t)
			url := srv.OpenAIBaseURL() + "/chat/completions"
			if c.format == "anthropic" {
				url = srv.AnthropicBaseURL() + "/v1/messages"
			}
			res, body := post(t, url, c.header, c.body)
			var shape struct {
				Type  string `json:"type"`
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &shape); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != 400 || shape.Error.Type != "invalid_request_error" || !strings.Contains(shape.Error.Message, c.want) {
				t.Errorf("%d %s, want 400 with %q", res.StatusCode, body, c.want)
			}
			if c.format == "anthropic" && shape.Type != "error" {
				t.Errorf("anthropic error without type \"error\": %s", body)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("refused request not recorded")
			}
		})
	}
}
