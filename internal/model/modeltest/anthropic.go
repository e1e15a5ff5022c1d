package modeltest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The Anthropic Messages request, as the API reference defines it. Fields
// this server does not act on are listed so that a client sending them is
// not refused; anything else is ("Extra inputs are not permitted").
type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   *int               `json:"max_tokens"`
	Messages    []anthropicMessage `json:"messages"`
	System      json.RawMessage    `json:"system"` // a string or text blocks
	Tools       []json.RawMessage  `json:"tools"`
	ToolChoice  json.RawMessage    `json:"tool_choice"`
	Stream      bool               `json:"stream"`
	Temperature *float64           `json:"temperature"`

	TopP          json.RawMessage `json:"top_p"`
	TopK          json.RawMessage `json:"top_k"`
	StopSequences json.RawMessage `json:"stop_sequences"`
	Metadata      json.RawMessage `json:"metadata"`
	Thinking      json.RawMessage `json:"thinking"`
	ServiceTier   json.RawMessage `json:"service_tier"`
	OutputConfig  json.RawMessage `json:"output_config"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or blocks
}

type anthropicBlock struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	IsError      bool            `json:"is_error"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	CacheControl json.RawMessage `json:"cache_control"`
}

type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl json.RawMessage `json:"cache_control"`
}

func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	req := received("anthropic", r)
	defer finish(req, r)

	var a anthropicRequest
	invalid := ""
	switch err := decodeStrict(req.Body, &a); {
	case r.Header.Get("Anthropic-Version") == "":
		invalid = "anthropic-version: header is required"
	case err != nil:
		invalid = anthropicDecodeError(err)
	default:
		invalid = s.decodeAnthropic(&a, req)
	}
	turn, ok := s.record(w, req, r.Header.Get("X-Api-Key"), invalid)
	if !ok {
		return
	}
	id := s.nextID()

	// The content blocks of the answer, in the order the API sends them.
	var blocks []map[string]any
	if turn.Thinking != "" {
		sig := s.sign(turn.Thinking)
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": turn.Thinking, "signature": sig})
	}
	if turn.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": turn.Text})
	}
	for i, c := range turn.ToolCalls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("toolu_modeltest%d_%d", id, i)
		}
		if !isJSONObject(c.Args) {
			s.t.Errorf("modeltest: turn's call %q has args %q; Anthropic sends an object", c.Name, c.Args)
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Args)})
	}
	if turn.JSON != "" {
		if req.JSONName == "" {
			s.t.Errorf("modeltest: a JSON turn answers a request that forced no tool")
		}
		input := json.RawMessage(turn.JSON)
		if !req.Stream && !isJSONObject(turn.JSON) {
			// A whole answer always holds an object; a cut-off one in a
			// stream ends with the partial text.
			input = json.RawMessage("{}")
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_modeltest%d_json", id),
			"name": req.JSONName, "input": input})
	}
	stop := "end_turn"
	if len(turn.ToolCalls) > 0 || turn.JSON != "" {
		stop = "tool_use"
	}
	if turn.StopReason != "" {
		stop = turn.StopReason
	}
	u := turn.Usage.orDefault()
	usage := map[string]any{
		"input_tokens":                u.Input,
		"cache_creation_input_tokens": u.CacheWrite,
		"cache_read_input_tokens":     u.CacheRead,
		"output_tokens":               u.Output,
		"service_tier":                "standard",
	}
	message := map[string]any{
		"id": fmt.Sprintf("msg_modeltest%d", id), "type": "message", "role": "assistant",
		"model": req.Model, "stop_sequence": nil,
	}
	if !req.Stream {
		content := make([]any, len(blocks))
		for i, b := range blocks {
			content[i] = b
		}
		resp := with(message, map[string]any{"content": content, "stop_reason": stop, "usage": usage})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_modeltest")
		json.NewEncoder(w).Encode(resp)
		return
	}

	// A stream: message_start with the input usage, a ping, each block as
	// start, deltas and stop, then message_delta with the stop reason and
	// the final usage, and message_stop.
	type event struct {
		name string
		data any
	}
	startUsage := with(usage, map[string]any{"output_tokens": 1})
	events := []event{
		{"message_start", map[string]any{"type": "message_start", "message": with(message, map[string]any{
			"content": []any{}, "stop_reason": nil, "usage": startUsage,
		})}},
		{"ping", map[string]any{"type": "ping"}},
	}
	delta := func(i int, d map[string]any) event {
		return event{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}}
	}
	for i, b := range blocks {
		start := map[string]any{}
		var deltas []event
		switch b["type"] {
		case "thinking":
			start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			for _, p := range pieces(b["thinking"].(string), 6) {
				deltas = append(deltas, delta(i, map[string]any{"type": "thinking_delta", "thinking": p}))
			}
			deltas = append(deltas, delta(i, map[string]any{"type": "signature_delta", "signature": b["signature"]}))
		case "text":
			start = map[string]any{"type": "text", "text": ""}
			for _, p := range pieces(b["text"].(string), 4) {
				deltas = append(deltas, delta(i, map[string]any{"type": "text_delta", "text": p}))
			}
		case "tool_use":
			start = map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
			deltas = append(deltas, delta(i, map[string]any{"type": "input_json_delta", "partial_json": ""}))
			for _, p := range pieces(string(b["input"].(json.RawMessage)), 5) {
				deltas = append(deltas, delta(i, map[string]any{"type": "input_json_delta", "partial_json": p}))
			}
		}
		events = append(events, event{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start}})
		events = append(events, deltas...)
		events = append(events, event{"content_block_stop", map[string]any{"type": "content_block_stop", "index": i}})
	}
	finalUsage := with(usage, nil)
	delete(finalUsage, "service_tier")
	events = append(events,
		event{"message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": finalUsage}},
		event{"message_stop", map[string]any{"type": "message_stop"}},
	)

	out := newSSE(w)
	for i, e := range events {
		if i == 4 && s.interrupt(out, req, turn, "error", map[string]any{
			"type": "error", "error": map[string]any{"type": "overloaded_error", "message": turn.StreamError},
		}) {
			return
		}
		out.event(e.name, e.data)
	}
}

// sign issues a signature for a thinking block, remembered so that the
// block is accepted back only unchanged.
func (s *Server) sign(thinking string) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(s.nextID(), thinking)))
	sig := "sig_" + hex.EncodeToString(sum[:12])
	s.mu.Lock()
	s.signatures[sig] = thinking
	s.mu.Unlock()
	return sig
}

func (s *Server) signed(sig, thinking string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.signatures[sig]
	return ok && t == thinking
}

// decodeAnthropic fills req and returns what the real API would refuse.
func (s *Server) decodeAnthropic(a *anthropicRequest, req *Request) string {
	req.Model = a.Model
	req.Stream = a.Stream
	req.Temperature = a.Temperature
	req.ToolChoice = a.ToolChoice
	if a.MaxTokens != nil {
		req.MaxTokens = *a.MaxTokens
	}
	switch {
	case a.Model == "":
		return "model: Field required"
	case a.MaxTokens == nil:
		return "max_tokens: Field required"
	case *a.MaxTokens < 1:
		return "max_tokens: Input should be greater than or equal to 1"
	case len(a.Messages) == 0:
		return "messages: at least one message is required"
	}

	// system: a string or text blocks.
	if len(a.System) > 0 {
		var text string
		var blocks []anthropicBlock
		switch {
		case json.Unmarshal(a.System, &text) == nil:
			req.System = text
		case json.Unmarshal(a.System, &blocks) == nil:
			for i, b := range blocks {
				if b.Type != "text" || b.Text == nil {
					return fmt.Sprintf("system.%d: only text blocks are allowed", i)
				}
				req.System += *b.Text
				if len(b.CacheControl) > 0 {
					req.CacheBreakpoints++
				}
			}
		default:
			return "system: Input should be a valid string or a list of text blocks"
		}
	}

	tools := map[string]bool{}
	for i, raw := range a.Tools {
		var t anthropicTool
		if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
			return fmt.Sprintf("tools.%d: a tool needs a name", i)
		}
		if !isObject(t.InputSchema) {
			return fmt.Sprintf("tools.%d.custom.input_schema.type: Input should be 'object'", i)
		}
		if tools[t.Name] {
			return "tools: Tool names must be unique."
		}
		tools[t.Name] = true
		if len(t.CacheControl) > 0 {
			req.CacheBreakpoints++
		}
		req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
	}
	if len(a.ToolChoice) > 0 {
		var tc struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(a.ToolChoice, &tc); err != nil {
			return "tool_choice: Input should be an object"
		}
		if tc.Type == "tool" {
			if !tools[tc.Name] {
				return fmt.Sprintf("tool_choice: Tool '%s' not found in provided tools", tc.Name)
			}
			req.JSONName = tc.Name
			for _, t := range req.Tools {
				if t.Name == tc.Name {
					req.JSONSchema = t.Schema
				}
			}
		}
	}

	var pending []string // tool_use IDs of the previous assistant message
	usesTools := false
	for i, m := range a.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		blocks, raws, err := anthropicContent(m.Content)
		if err != "" {
			return fmt.Sprintf("messages.%d.content: %s", i, err)
		}
		msg := Message{Role: m.Role, Blocks: raws}
		answered := map[string]bool{}
		seenOther := false
		for j, b := range blocks {
			if len(b.CacheControl) > 0 {
				req.CacheBreakpoints++
			}
			where := fmt.Sprintf("messages.%d.content.%d", i, j)
			switch b.Type {
			case "text":
				if b.Text == nil || *b.Text == "" {
					return where + ": text content blocks must be non-empty"
				}
				msg.Text += *b.Text
				seenOther = true
			case "thinking":
				if m.Role != "assistant" {
					return where + ": thinking blocks are only allowed in assistant messages"
				}
				if !s.signed(b.Signature, b.Thinking) {
					return where + ": Invalid `signature` in `thinking` block"
				}
			case "tool_use":
				if m.Role != "assistant" {
					return where + ": tool_use blocks are only allowed in assistant messages"
				}
				if b.ID == "" || b.Name == "" || !isJSONObject(string(b.Input)) {
					return where + ": tool_use needs an id, a name and an object input"
				}
				usesTools = true
				msg.ToolCalls = append(msg.ToolCalls, Call{ID: b.ID, Name: b.Name, Args: string(b.Input)})
			case "tool_result":
				if m.Role != "user" {
					return where + ": tool_result blocks are only allowed in user messages"
				}
				if seenOther {
					return where + ": tool_result blocks must come first in the content, before any other block"
				}
				if !slices.Contains(pending, b.ToolUseID) {
					return fmt.Sprintf("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", where, b.ToolUseID)
				}
				text, err := anthropicResultText(b.Content)
				if err != "" {
					return where + ".content: " + err
				}
				usesTools = true
				answered[b.ToolUseID] = true
				msg.Results = append(msg.Results, Result{CallID: b.ToolUseID, Text: text, IsError: b.IsError})
			default:
				seenOther = true
			}
		}
		if len(pending) > 0 {
			var missing []string
			for _, id := range pending {
				if !answered[id] {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(missing, ", "))
			}
		}
		pending = nil
		for _, c := range msg.ToolCalls {
			pending = append(pending, c.ID)
		}
		req.Messages = append(req.Messages, msg)
	}
	if a.Messages[0].Role != "user" {
		return "messages: the first message must use the \"user\" role"
	}
	if usesTools && len(a.Tools) == 0 {
		return "Requests which include `tool_use` or `tool_result` blocks must define tools."
	}
	if req.CacheBreakpoints > 4 {
		return fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", req.CacheBreakpoints)
	}
	return ""
}

// anthropicContent reads a message's content: a string or blocks.
func anthropicContent(raw json.RawMessage) ([]anthropicBlock, []json.RawMessage, string) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		b, _ := json.Marshal(map[string]string{"type": "text", "text": text})
		return []anthropicBlock{{Type: "text", Text: &text}}, []json.RawMessage{b}, ""
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return nil, nil, "Input should be a valid string or list of blocks"
	}
	blocks := make([]anthropicBlock, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &blocks[i]); err != nil || blocks[i].Type == "" {
			return nil, nil, fmt.Sprintf("%d: a block needs a type", i)
		}
	}
	return blocks, raws, ""
}

// anthropicResultText reads a tool_result's content: absent, a string, or
// text blocks.
func anthropicResultText(raw json.RawMessage) (string, string) {
	if len(raw) == 0 {
		return "", ""
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text, ""
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", "Input should be a valid string or list of blocks"
	}
	var b strings.Builder
	for i, blk := range blocks {
		if blk.Type == "text" {
			if blk.Text == nil || *blk.Text == "" {
				return "", fmt.Sprintf("%d: text content blocks must be non-empty", i)
			}
			b.WriteString(*blk.Text)
		}
	}
	return b.String(), ""
}

func anthropicDecodeError(err error) string {
	msg := err.Error()
	if field, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return strings.Trim(field, `"`) + ": Extra inputs are not permitted"
	}
	return "There was an error parsing the body of your request: " + msg
}

func isJSONObject(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) > 0 && s[0] == '{' && json.Valid([]byte(s))
}
