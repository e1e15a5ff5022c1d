package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The OpenAI Chat Completions request, as the API reference defines it.
// Fields this server does not act on are listed so that a client sending
// them is not refused; anything else is, as the real API does.
type openAIRequest struct {
	Model          string          `json:"model"`
	Messages       []openAIMessage `json:"messages"`
	Tools          []openAITool    `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	MaxTokens           *int     `json:"max_tokens"`
	Temperature         *float64 `json:"temperature"`

	TopP              json.RawMessage `json:"top_p"`
	N                 json.RawMessage `json:"n"`
	Stop              json.RawMessage `json:"stop"`
	Seed              json.RawMessage `json:"seed"`
	User              json.RawMessage `json:"user"`
	Store             json.RawMessage `json:"store"`
	Metadata          json.RawMessage `json:"metadata"`
	ParallelToolCalls json.RawMessage `json:"parallel_tool_calls"`
	PresencePenalty   json.RawMessage `json:"presence_penalty"`
	FrequencyPenalty  json.RawMessage `json:"frequency_penalty"`
	ReasoningEffort   json.RawMessage `json:"reasoning_effort"`
	ServiceTier       json.RawMessage `json:"service_tier"`
	PromptCacheKey    json.RawMessage `json:"prompt_cache_key"`
}

type openAIMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content"` // a string, parts, or null
	Name       string           `json:"name"`
	Refusal    *string          `json:"refusal"`
	ToolCalls  []openAIToolCall `json:"tool_calls"`
	ToolCallID string           `json:"tool_call_id"`
}

type openAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openAITool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      *bool           `json:"strict"`
	} `json:"function"`
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	req := received("openai", r)
	defer finish(req, r)
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")

	var o openAIRequest
	invalid := ""
	if err := decodeStrict(req.Body, &o); err != nil {
		invalid = openAIDecodeError(err)
	} else {
		invalid = decodeOpenAI(&o, req)
	}
	turn, ok := s.record(w, req, key, invalid)
	if !ok {
		return
	}
	id := s.nextID()
	calls := make([]Call, len(turn.ToolCalls))
	for i, c := range turn.ToolCalls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d_%d", id, i)
		}
		if !json.Valid([]byte(c.Args)) {
			s.t.Errorf("modeltest: turn's call %q has invalid JSON args %q", c.Name, c.Args)
		}
		calls[i] = c
	}
	text := turn.Text
	if turn.JSON != "" {
		text = turn.JSON
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if turn.StopReason != "" {
		finish = turn.StopReason
	}
	u := turn.Usage.orDefault()
	prompt := u.Input + u.CacheRead + u.CacheWrite
	usage := map[string]any{
		"prompt_tokens":     prompt,
		"completion_tokens": u.Output,
		"total_tokens":      prompt + u.Output,
		"prompt_tokens_details": map[string]any{
			"cached_tokens": u.CacheRead, "audio_tokens": 0,
		},
		"completion_tokens_details": map[string]any{
			"reasoning_tokens": 0, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
		},
	}
	head := map[string]any{
		"id":                 fmt.Sprintf("chatcmpl-modeltest%d", id),
		"created":            1700000000 + id,
		"model":              req.Model,
		"system_fingerprint": "fp_modeltest",
		"service_tier":       "default",
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
		if text != "" {
			msg["content"] = text
		}
		if len(calls) > 0 {
			list := make([]any, len(calls))
			for i, c := range calls {
				list[i] = map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Args}}
			}
			msg["tool_calls"] = list
		}
		resp := with(head, map[string]any{
			"object":  "chat.completion",
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
			"usage":   usage,
		})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
		return
	}

	// A stream: the role first, then text in pieces, then each call (its
	// id and name, then its arguments in pieces), the finish reason, the
	// usage when asked for, and [DONE].
	chunk := func(delta map[string]any, finish any) map[string]any {
		c := with(head, map[string]any{
			"object":  "chat.completion.chunk",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		})
		if req.IncludeUsage {
			c["usage"] = nil
		}
		return c
	}
	var events []any
	first := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if text != "" {
		first["content"] = ""
	}
	events = append(events, chunk(first, nil))
	for _, p := range pieces(text, 4) {
		events = append(events, chunk(map[string]any{"content": p}, nil))
	}
	for i, c := range calls {
		events = append(events, chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
		for _, p := range pieces(c.Args, 5) {
			events = append(events, chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": p},
			}}}, nil))
		}
	}
	events = append(events, chunk(map[string]any{}, finish))
	if req.IncludeUsage {
		events = append(events, with(head, map[string]any{
			"object": "chat.completion.chunk", "choices": []any{}, "usage": usage,
		}))
	}
	events = append(events, []byte("[DONE]"))

	out := newSSE(w)
	for i, e := range events {
		if i == 2 && s.interrupt(out, req, turn, "", map[string]any{
			"error": map[string]any{"message": turn.StreamError, "type": "server_error", "param": nil, "code": nil},
		}) {
			return
		}
		out.event("", e)
	}
}

// interrupt carries out a Turn's Stall, Cut or StreamError once the first
// events are out, and reports whether the stream ends here.
func (s *Server) interrupt(out *sse, req *Request, turn Turn, errEvent string, errData any) bool {
	switch {
	case turn.Stall:
		s.stall(req)
		return true
	case turn.Cut:
		return true
	case turn.StreamError != "":
		out.event(errEvent, errData)
		return true
	}
	return false
}

// decodeOpenAI fills req and returns what the real API would refuse.
func decodeOpenAI(o *openAIRequest, req *Request) string {
	req.Model = o.Model
	req.Stream = o.Stream
	req.Temperature = o.Temperature
	req.ToolChoice = o.ToolChoice
	if o.StreamOptions != nil {
		req.IncludeUsage = o.StreamOptions.IncludeUsage
	}
	switch {
	case o.MaxCompletionTokens != nil:
		req.MaxTokens = *o.MaxCompletionTokens
	case o.MaxTokens != nil:
		req.MaxTokens = *o.MaxTokens
	}
	if o.Model == "" {
		return "you must provide a model parameter"
	}
	if len(o.Messages) == 0 {
		return "[] is too short - 'messages'"
	}
	if o.StreamOptions != nil && !o.Stream {
		return "The 'stream_options' parameter is only allowed when 'stream' is enabled."
	}
	for i, t := range o.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return fmt.Sprintf("Invalid value for 'tools[%d]': a function tool needs type \"function\" and a name.", i)
		}
		if len(t.Function.Parameters) > 0 && !isObject(t.Function.Parameters) {
			return fmt.Sprintf("Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"'.", t.Function.Name)
		}
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters})
	}
	if rf := o.ResponseFormat; rf != nil && rf.Type == "json_schema" {
		if rf.JSONSchema == nil || rf.JSONSchema.Name == "" {
			return "Missing required parameter: 'response_format.json_schema.name'."
		}
		req.JSONName = rf.JSONSchema.Name
		req.JSONSchema = rf.JSONSchema.Schema
	}

	pending := map[string]bool{} // calls of the last assistant message not yet answered
	for i, m := range o.Messages {
		text, err := openAIText(m.Content)
		if err != "" {
			return fmt.Sprintf("Invalid value for 'messages[%d].content': %s", i, err)
		}
		if m.Role != "tool" && len(pending) > 0 {
			return unansweredCalls(pending)
		}
		switch m.Role {
		case "system", "developer":
			req.System += text
			continue
		case "user":
			req.Messages = append(req.Messages, Message{Role: "user", Text: text})
		case "assistant":
			msg := Message{Role: "assistant", Text: text}
			for _, c := range m.ToolCalls {
				if c.ID == "" || c.Type != "function" || c.Function.Name == "" {
					return fmt.Sprintf("Invalid value for 'messages[%d].tool_calls': each call needs an id, type \"function\" and a name.", i)
				}
				msg.ToolCalls = append(msg.ToolCalls, Call{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
				pending[c.ID] = true
			}
			req.Messages = append(req.Messages, msg)
		case "tool":
			if !pending[m.ToolCallID] {
				return fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[%d], tool_call_id %q)", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			req.Messages = append(req.Messages, Message{Role: "tool", Text: text, Results: []Result{{CallID: m.ToolCallID, Text: text}}})
		default:
			return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function', and 'developer'.", m.Role)
		}
	}
	if len(pending) > 0 {
		return unansweredCalls(pending)
	}
	return ""
}

func unansweredCalls(pending map[string]bool) string {
	ids := make([]string, 0, len(pending))
	for id := range pending {
		ids = append(ids, id)
	}
	return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(sorted(ids), ", ")
}

// openAIText reads a content field: a string, text parts, or null.
func openAIText(raw json.RawMessage) (string, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, ""
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", "expected a string or an array of content parts"
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), ""
}

func openAIDecodeError(err error) string {
	msg := err.Error()
	if field, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "Unrecognized request argument supplied: " + strings.Trim(field, `"`)
	}
	return "We could not parse the JSON body of your request. (" + msg + ")"
}
