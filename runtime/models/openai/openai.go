// Package openai links the "openai" model provider into a binary: Chat
// Completions through the official SDK (github.com/openai/openai-go),
// spoken by OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp, LM Studio,
// OpenRouter … The generated registry imports it when the spec declares a
// model with provider = "openai"; nothing else needs to.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// openAIModel speaks Chat Completions through the official SDK.
type openAIModel struct {
	cfg    model.Config
	chat   openai.ChatCompletionService
	system model.TextCache
}

func init() { model.Register("openai", func(cfg model.Config) model.Model { return newOpenAI(cfg) }) }

func newOpenAI(cfg model.Config) *openAIModel {
	// The service, unlike openai.NewClient, reads no OPENAI_* variables:
	// the spec says where every value comes from.
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(cfg.Client()),
		option.WithMaxRetries(cfg.Retries()),
		option.WithMaxRetryDelay(model.MaxRetryAfter),
	}
	opts = append(opts, model.SpecOptions(&cfg, option.WithBaseURL, option.WithAPIKey, option.WithRequestTimeout, option.WithHeader)...)
	return &openAIModel{cfg: cfg, chat: openai.NewChatCompletionService(opts...)}
}

func (m *openAIModel) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	start := time.Now()
	body, err := m.body(req)
	if err != nil {
		return nil, err
	}
	// The body is ours (built from SDK types, tools spliced in); the SDK
	// sends it with its auth, retries and decoding.
	withBody := option.WithRequestBody("application/json", body)
	var cc *openai.ChatCompletion
	if req.Stream {
		cc, err = m.stream(ctx, withBody)
	} else {
		cc, err = m.chat.New(ctx, openai.ChatCompletionNewParams{}, withBody)
	}
	if err != nil {
		return nil, m.fail(ctx, err)
	}
	resp, err := m.response(cc, req)
	if resp != nil {
		resp.Latency = time.Since(start)
	}
	return resp, err
}

// body is the request. The SDK marshals each part from its own types;
// messages come encoded from earlier turns where they can, the tools from
// the Toolset, and the parts are joined without re-encoding.
func (m *openAIModel) body(req *model.Request) ([]byte, error) {
	b, fields, err := model.BodyStart(&m.cfg, req, m.params, m.messagesJSON)
	if err != nil {
		return nil, err
	}
	if tools := req.Tools.Wire(model.OpenAI, openAITool); tools != nil {
		fields = append(fields, model.Field{Key: "tools", Value: tools})
	}
	return model.JoinObject(b, fields...), nil
}

// params holds everything but the messages and tools.
func (m *openAIModel) params(req *model.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(m.cfg.Name)}
	if m.cfg.MaxTokens > 0 {
		// max_tokens is deprecated and refused by reasoning models; servers
		// that predate max_completion_tokens ignore it and use their default.
		p.MaxCompletionTokens = openai.Int(int64(m.cfg.MaxTokens))
	}
	if m.cfg.Temperature != nil {
		p.Temperature = openai.Float(*m.cfg.Temperature)
	}
	if len(req.JSONSchema) > 0 {
		schema, err := model.CompactSchema(req.JSONSchema)
		if err != nil {
			return p, fmt.Errorf("%s: JSON schema: %v", m.cfg.Describe(), err)
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:   req.AnswerName(),
				Schema: schema,
				Strict: openai.Bool(true),
			},
		}
		if req.Tools.Len() > 0 {
			p.ToolChoice.OfAuto = openai.String("none") // the JSON is the answer
		}
	}
	if req.Stream {
		p.StreamOptions.IncludeUsage = openai.Bool(true)
	}
	return p, nil
}

// messagesJSON returns each message's encoding, in order.
func (m *openAIModel) messagesJSON(req *model.Request) ([][]byte, error) {
	parts := make([][]byte, 0, len(req.Messages)+1)
	if req.System != "" {
		b, err := m.system.Get(req.System, openai.SystemMessage(req.System).MarshalJSON)
		if err != nil {
			return nil, err
		}
		parts = append(parts, b)
	}
	for i := range req.Messages {
		msg := &req.Messages[i]
		switch msg.Role {
		case model.User, model.Assistant:
		case model.ToolResult:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: a tool result needs the ID of its call", i)
			}
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
		b, err := model.EncodeOnce(msg, model.OpenAI, func() ([]byte, error) { return openAIMessage(msg).MarshalJSON() })
		if err != nil {
			return nil, err
		}
		parts = append(parts, b)
	}
	return parts, nil
}

func openAIMessage(msg *model.Message) openai.ChatCompletionMessageParamUnion {
	switch msg.Role {
	case model.User:
		return openai.UserMessage(msg.Text)
	case model.ToolResult:
		return openai.ToolMessage(msg.Text, msg.ToolCallID)
	}
	if raw, ok := msg.Raw.(openai.ChatCompletionMessageParamUnion); ok {
		return raw
	}
	return openAIAssistant(msg.Text, "", msg.ToolCalls)
}

func openAIAssistant(text, refusal string, calls []model.ToolCall) openai.ChatCompletionMessageParamUnion {
	var a openai.ChatCompletionAssistantMessageParam
	if text != "" {
		a.Content.OfString = openai.String(text)
	}
	if refusal != "" {
		a.Refusal = openai.String(refusal)
	}
	if len(calls) > 0 {
		a.ToolCalls = make([]openai.ChatCompletionMessageToolCallUnionParam, len(calls))
		for i, c := range calls {
			a.ToolCalls[i].OfFunction = &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: c.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name:      c.Name,
					Arguments: string(c.Args),
				},
			}
		}
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

func (m *openAIModel) stream(ctx context.Context, withBody option.RequestOption) (*openai.ChatCompletion, error) {
	s := m.chat.NewStreaming(ctx, openai.ChatCompletionNewParams{}, withBody)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		if !acc.AddChunk(s.Current()) {
			return nil, errors.New("the streamed answer could not be assembled (chunks out of order or too large)")
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		return nil, errors.New("the stream ended before the answer was complete")
	}
	return &acc.ChatCompletion, nil
}

func (m *openAIModel) response(cc *openai.ChatCompletion, req *model.Request) (*model.Response, error) {
	if len(cc.Choices) == 0 {
		return nil, m.cfg.NewError(context.Background(), 0, "", errors.New("the answer has no choices"))
	}
	choice := &cc.Choices[0]
	msg := &choice.Message
	r := &model.Response{Message: model.Keep(model.Message{Role: model.Assistant, Text: msg.Content})}
	if len(msg.ToolCalls) > 0 {
		r.ToolCalls = make([]model.ToolCall, 0, len(msg.ToolCalls))
		for i := range msg.ToolCalls {
			tc := &msg.ToolCalls[i]
			if tc.Type != "" && tc.Type != "function" {
				continue // custom tools are never declared here
			}
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", i) // some local servers send none
			}
			r.ToolCalls = append(r.ToolCalls, model.ToolCall{ID: id, Name: tc.Function.Name, Args: model.ValidJSONArgs(tc.Function.Arguments)})
		}
	}
	if r.Text == "" && msg.Refusal != "" {
		r.Text = msg.Refusal
	}
	r.Raw = openAIAssistant(msg.Content, msg.Refusal, r.ToolCalls)
	r.StopReason = openAIStopReason(choice.FinishReason, msg.Refusal)
	r.Usage = model.Usage{
		InputTokens:     cc.Usage.PromptTokens,
		OutputTokens:    cc.Usage.CompletionTokens,
		CacheReadTokens: cc.Usage.PromptTokensDetails.CachedTokens,
	}
	if len(req.JSONSchema) > 0 {
		if !json.Valid([]byte(msg.Content)) || r.StopReason == model.StopMaxTokens {
			return r, m.cfg.NewError(context.Background(), 0, "", fmt.Errorf("the answer is not valid JSON (stop reason %s)", r.StopReason))
		}
		r.JSON = json.RawMessage(msg.Content)
	}
	return r, nil
}

func openAIStopReason(finish, refusal string) string {
	switch {
	case refusal != "" || finish == "content_filter":
		return model.StopRefusal
	case finish == "stop":
		return model.StopEnd
	case finish == "tool_calls", finish == "function_call":
		return model.StopToolUse
	case finish == "length":
		return model.StopMaxTokens
	}
	return finish
}

// fail makes an SDK error safe and clear. The SDK's error keeps the request
// (Authorization header included), so only its status and message survive.
func (m *openAIModel) fail(ctx context.Context, err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		detail := apiErr.Message
		if detail == "" {
			detail = model.ProviderMessage(apiErr.RawJSON())
		}
		return m.cfg.NewError(ctx, apiErr.StatusCode, detail, err)
	}
	return m.cfg.NewError(ctx, 0, "", model.StreamError(err))
}

// openAITool is the Chat Completions form of a tool, marshalled once.
func openAITool(t model.Tool, _ bool) []byte {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	return model.MustMarshal(struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}{"function", function{t.Name, t.Description, t.InputSchema}})
}
