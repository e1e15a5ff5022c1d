// Package anthropic links the "anthropic" model provider into a binary:
// the Messages API through the official SDK
// (github.com/anthropics/anthropic-sdk-go). The generated registry imports
// it when the spec declares a model with provider = "anthropic"; nothing
// else needs to.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// anthropicModel speaks the Messages API through the official SDK.
type anthropicModel struct {
	cfg       model.Config
	messages  anthropic.MessageService
	system    model.TextCache
	maxTokens int64
	// mustStream is set when the SDK would refuse a plain request this
	// large (it expects such answers to take more than ten minutes).
	mustStream bool
}

func init() {
	model.Register("anthropic", func(cfg model.Config) model.Model { return newAnthropic(cfg) })
}

func newAnthropic(cfg model.Config) *anthropicModel {
	// WithoutEnvironmentDefaults: no ANTHROPIC_* variables or profile files;
	// the spec says where every value comes from.
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(cfg.Client()),
		option.WithMaxRetries(cfg.Retries()),
		option.WithMiddleware(boundRetryAfter),
	}
	opts = append(opts, model.SpecOptions(&cfg, option.WithBaseURL, option.WithAPIKey, option.WithRequestTimeout, option.WithHeader)...)
	m := &anthropicModel{cfg: cfg, messages: anthropic.NewClient(opts...).Messages}
	m.maxTokens = int64(cfg.MaxTokens)
	if m.maxTokens == 0 {
		m.maxTokens = model.DefaultAnthropicMaxTokens
	}
	_, err := anthropic.CalculateNonStreamingTimeout(int(m.maxTokens), anthropic.Model(cfg.Name), nil)
	m.mustStream = err != nil
	return m
}

// boundRetryAfter stops the SDK from waiting longer than model.MaxRetryAfter
// before a retry (it would honour any Retry-After): such an answer ends the
// call with the server's error, as the OpenAI SDK does.
func boundRetryAfter(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if res != nil && retryAfter(res.Header) > model.MaxRetryAfter {
		res.Header.Set("X-Should-Retry", "false")
	}
	return res, err
}

func retryAfter(h http.Header) time.Duration {
	if v, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil {
		return time.Duration(v * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

func (m *anthropicModel) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	start := time.Now()
	body, err := m.body(req)
	if err != nil {
		return nil, err
	}
	// The body is ours (built from SDK types, tools spliced in); the SDK
	// sends it with its auth, retries and decoding. It still reads model and
	// max_tokens from params, to decide whether a plain request is allowed.
	withBody := option.WithRequestBody("application/json", body)
	head := anthropic.MessageNewParams{Model: anthropic.Model(m.cfg.Name), MaxTokens: m.maxTokens}
	var msg *anthropic.Message
	if req.Stream || m.mustStream {
		msg, err = m.stream(ctx, head, withBody)
	} else {
		msg, err = m.messages.New(ctx, head, withBody)
	}
	if err != nil {
		return nil, m.fail(ctx, err)
	}
	resp, err := m.response(msg, req)
	resp.Latency = time.Since(start)
	return resp, err
}

// body is the request. The SDK marshals each part from its own types;
// messages come encoded from earlier turns where they can, the tools from
// the Toolset, and the parts are joined without re-encoding.
func (m *anthropicModel) body(req *model.Request) ([]byte, error) {
	b, fields, err := model.BodyStart(&m.cfg, req, m.params, anthropicMessagesJSON)
	if err != nil {
		return nil, err
	}
	if req.System != "" {
		// Tools, then system, open every request: cache up to here.
		sys, err := m.system.Get(req.System, func() ([]byte, error) {
			return json.Marshal([]anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}})
		})
		if err != nil {
			return nil, err
		}
		fields = append(fields, model.Field{Key: "system", Value: sys})
	}
	tools := req.Tools.Wire(model.Anthropic, anthropicTool)
	if len(req.JSONSchema) > 0 {
		schema, err := model.CompactSchema(req.JSONSchema)
		if err != nil {
			return nil, fmt.Errorf("%s: JSON schema: %v", m.cfg.Describe(), err)
		}
		// The answer is a tool the model must call; its input is the JSON.
		answer := anthropicTool(model.Tool{Name: req.AnswerName(), Description: "Give your answer as this tool's input.", InputSchema: schema}, false)
		if len(tools) == 0 {
			tools = model.JSONArray([][]byte{answer})
		} else {
			tools = append(append(append(tools[:len(tools)-1:len(tools)-1], ','), answer...), ']')
		}
	}
	if len(tools) > 0 {
		fields = append(fields, model.Field{Key: "tools", Value: tools})
	}
	return model.JoinObject(b, fields...), nil
}

// params holds everything but the messages, system prompt and tools.
func (m *anthropicModel) params(req *model.Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(m.cfg.Name), MaxTokens: m.maxTokens}
	if m.cfg.Temperature != nil {
		p.Temperature = anthropic.Float(*m.cfg.Temperature)
	}
	if len(req.JSONSchema) > 0 {
		name := req.AnswerName()
		if req.Tools.Has(name) {
			return p, fmt.Errorf("%s: the JSON answer's name %q is also a tool's; set another JSONName", m.cfg.Describe(), name)
		}
		p.ToolChoice.OfTool = &anthropic.ToolChoiceToolParam{Name: name}
	}
	return p, nil
}

// anthropicMessagesJSON encodes the conversation, one item per wire
// message. model.Tool results and user text that follow each other become one
// user message (results first), as the API wants every result of a turn in
// the message right after it.
func anthropicMessagesJSON(req *model.Request) ([][]byte, error) {
	var out [][]byte
	var group []*model.Message // the user-side messages of the open user message
	flush := func(last bool) error {
		if len(group) == 0 {
			return nil
		}
		blocks := make([][]byte, len(group))
		for i, msg := range group {
			var err error
			if last && i == len(group)-1 {
				// Cache the conversation so far: the next turn starts with it.
				// This block is encoded afresh, with the breakpoint.
				blocks[i], err = anthropicUserBlock(msg, true).MarshalJSON()
			} else {
				blocks[i], err = model.EncodeOnce(msg, model.Anthropic, func() ([]byte, error) { return anthropicUserBlock(msg, false).MarshalJSON() })
			}
			if err != nil {
				return err
			}
		}
		out = append(out, model.JoinObject([]byte(`{"role":"user"}`), model.Field{Key: "content", Items: blocks}))
		group = group[:0]
		return nil
	}
	for i := range req.Messages {
		msg := &req.Messages[i]
		switch msg.Role {
		case model.User:
			group = append(group, msg)
		case model.ToolResult:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: a tool result needs the ID of its call", i)
			}
			group = append(group, msg)
		case model.Assistant:
			if err := flush(false); err != nil {
				return nil, err
			}
			b, err := model.EncodeOnce(msg, model.Anthropic, func() ([]byte, error) {
				if raw, ok := msg.Raw.(anthropic.MessageParam); ok {
					return raw.MarshalJSON() // thinking blocks and all, unchanged
				}
				return anthropicAssistant(msg).MarshalJSON()
			})
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	if err := flush(true); err != nil {
		return nil, err
	}
	return out, nil
}

// anthropicUserBlock is a user text or a tool result as a content block.
func anthropicUserBlock(msg *model.Message, cacheBreak bool) anthropic.ContentBlockParamUnion {
	var cc anthropic.CacheControlEphemeralParam
	if cacheBreak {
		cc = anthropic.NewCacheControlEphemeralParam()
	}
	if msg.Role == model.User {
		return anthropic.ContentBlockParamUnion{OfText: &anthropic.TextBlockParam{Text: msg.Text, CacheControl: cc}}
	}
	r := &anthropic.ToolResultBlockParam{ToolUseID: msg.ToolCallID, CacheControl: cc}
	if msg.Text != "" { // the API refuses empty text blocks
		r.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: msg.Text}}}
	}
	if msg.IsError {
		r.IsError = anthropic.Bool(true)
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: r}
}

// anthropicAssistant rebuilds an assistant message that came from another
// provider (or was written by hand) from its text and calls.
func anthropicAssistant(msg *model.Message) anthropic.MessageParam {
	blocks := make([]anthropic.ContentBlockParamUnion, 0, 1+len(msg.ToolCalls))
	if msg.Text != "" {
		blocks = append(blocks, anthropic.ContentBlockParamUnion{OfText: &anthropic.TextBlockParam{Text: msg.Text}})
	}
	for _, c := range msg.ToolCalls {
		input := c.Args
		if !json.Valid(input) || len(input) == 0 || input[0] != '{' {
			input = json.RawMessage("{}") // the API takes only an object
		}
		blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolUse: &anthropic.ToolUseBlockParam{ID: c.ID, Name: c.Name, Input: input}})
	}
	return anthropic.MessageParam{Role: anthropic.MessageParamRoleAssistant, Content: blocks}
}

func (m *anthropicModel) stream(ctx context.Context, head anthropic.MessageNewParams, withBody option.RequestOption) (*anthropic.Message, error) {
	s := m.messages.NewStreaming(ctx, head, withBody)
	defer s.Close()
	var msg anthropic.Message
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			return nil, fmt.Errorf("the streamed answer could not be assembled: %v", err)
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if msg.StopReason == "" {
		return nil, errors.New("the stream ended before the answer was complete")
	}
	return &msg, nil
}

func (m *anthropicModel) response(msg *anthropic.Message, req *model.Request) (*model.Response, error) {
	r := &model.Response{Message: model.Keep(model.Message{Role: model.Assistant, Raw: msg.ToParam()}), StopReason: string(msg.StopReason)}
	wantJSON := len(req.JSONSchema) > 0
	var text strings.Builder
	for i := range msg.Content {
		b := &msg.Content[i]
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if wantJSON && b.Name == req.AnswerName() {
				r.JSON = b.Input
				continue
			}
			args := b.Input
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			r.ToolCalls = append(r.ToolCalls, model.ToolCall{ID: b.ID, Name: b.Name, Args: args})
		}
	}
	r.Text = text.String()
	u := &msg.Usage
	r.Usage = model.Usage{
		InputTokens:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}
	if wantJSON {
		// A cut-off call can still parse ("{}" after the SDK repairs it).
		if !json.Valid(r.JSON) || r.StopReason == model.StopMaxTokens {
			r.JSON = nil
			return r, m.cfg.NewError(context.Background(), 0, "", fmt.Errorf("the answer is not valid JSON (stop reason %s)", r.StopReason))
		}
		if len(r.ToolCalls) == 0 && r.StopReason == model.StopToolUse {
			r.StopReason = model.StopEnd // the forced call is the answer
		}
	}
	return r, nil
}

func (m *anthropicModel) fail(ctx context.Context, err error) error {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		// apiErr.Error() quotes the URL and body; take only the message.
		status := apiErr.StatusCode
		if status == 0 && apiErr.Response != nil {
			status = apiErr.Response.StatusCode
		}
		detail := model.ProviderMessage(apiErr.RawJSON())
		if status == http.StatusOK || status == 0 {
			// An error event inside a 200 stream.
			return m.cfg.NewError(ctx, 0, "", errors.New("error in the stream: "+detail))
		}
		return m.cfg.NewError(ctx, status, detail, err)
	}
	return m.cfg.NewError(ctx, 0, "", model.StreamError(err))
}

// anthropicTool is the Messages form of a tool, marshalled once.
func anthropicTool(t model.Tool, cacheBreak bool) []byte {
	type cacheControl struct {
		Type string `json:"type"`
	}
	v := struct {
		Name         string          `json:"name"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl *cacheControl   `json:"cache_control,omitempty"`
	}{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	if cacheBreak {
		v.CacheControl = &cacheControl{Type: "ephemeral"}
	}
	return model.MustMarshal(v)
}
