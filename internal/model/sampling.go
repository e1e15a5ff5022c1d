package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The host's model: an MCP server may ask the host that connected to it
// for a message (sampling/createMessage). Since MCP 2025-11-25 the request
// may carry tools, and the answer tool_use blocks, so an agent that has no
// model of its own can run on the host's.

// Sampler asks the host for one message. *mcp.ServerSession is one.
type Sampler interface {
	CreateMessageWithTools(ctx context.Context, params *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
}

// SamplingConfig says how to ask the host.
type SamplingConfig struct {
	// Label names the model in errors: `model LABEL (sampling)`; default "host".
	Label string
	// MaxTokens is the answer cap sent (the request requires one); zero
	// means DefaultSamplingMaxTokens. The host may sample fewer.
	MaxTokens int
	// Temperature is sent only when set.
	Temperature *float64
	// Hints name models the agent would prefer (modelPreferences.hints);
	// the host is free to ignore them.
	Hints []string
}

// DefaultSamplingMaxTokens is the answer cap asked for when none is set.
const DefaultSamplingMaxTokens = 8192

// samplingCutoff is the first protocol version in which a server may no
// longer send sampling/createMessage while it serves a call (SEP-2322: the
// call must return input requests instead).
const samplingCutoff = "2026-07-28"

// CanSample reports whether the host on the other end of ss declared
// sampling with tools, on a protocol version that lets a server ask for it
// in the middle of a tool call.
func CanSample(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < samplingCutoff && p.Capabilities != nil &&
		p.Capabilities.Sampling != nil && p.Capabilities.Sampling.Tools != nil
}

// NewSampling returns the Model that asks the host through s. The host
// reports no token counts, so Usage stays zero; structured answers
// (Request.JSONSchema) are not available. Check CanSample first: a host
// that did not declare sampling with tools refuses the request.
func NewSampling(s Sampler, cfg SamplingConfig) Model {
	if cfg.Label == "" {
		cfg.Label = "host"
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultSamplingMaxTokens
	}
	return &samplingModel{s: s, cfg: cfg}
}

type samplingModel struct {
	s   Sampler
	cfg SamplingConfig
	// last keeps the MCP form of the last Toolset sent: a loop sends one
	// Toolset every turn until its surface changes.
	last atomic.Pointer[samplingTools]
}

type samplingTools struct {
	ts    *Toolset
	tools []*mcp.Tool
}

func (m *samplingModel) describe() string { return "model " + m.cfg.Label + " (sampling)" }

func (m *samplingModel) Generate(ctx context.Context, req *Request) (*Response, error) {
	start := time.Now()
	if len(req.JSONSchema) > 0 {
		return nil, &Error{Model: m.describe(), Message: "a structured (JSON schema) answer cannot be asked of the host's model"}
	}
	msgs, err := samplingMessages(req.Messages)
	if err != nil {
		return nil, &Error{Model: m.describe(), Message: err.Error()}
	}
	p := &mcp.CreateMessageWithToolsParams{
		MaxTokens:    int64(m.cfg.MaxTokens),
		Messages:     msgs,
		SystemPrompt: req.System,
		Tools:        m.tools(req.Tools),
	}
	if len(p.Tools) > 0 {
		p.ToolChoice = &mcp.ToolChoice{Mode: "auto"}
	}
	if m.cfg.Temperature != nil {
		p.Temperature = *m.cfg.Temperature
	}
	if len(m.cfg.Hints) > 0 {
		p.ModelPreferences = &mcp.ModelPreferences{}
		for _, h := range m.cfg.Hints {
			p.ModelPreferences.Hints = append(p.ModelPreferences.Hints, &mcp.ModelHint{Name: h})
		}
	}
	res, err := m.s.CreateMessageWithTools(ctx, p)
	if err != nil {
		return nil, m.fail(ctx, err)
	}
	resp, err := m.response(res)
	if resp != nil {
		resp.Latency = time.Since(start)
	}
	return resp, err
}

func (m *samplingModel) tools(ts *Toolset) []*mcp.Tool {
	if ts.Len() == 0 {
		return nil
	}
	if l := m.last.Load(); l != nil && l.ts == ts {
		return l.tools
	}
	out := make([]*mcp.Tool, len(ts.tools))
	for i, t := range ts.tools {
		out[i] = &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
	}
	m.last.Store(&samplingTools{ts: ts, tools: out})
	return out
}

// samplingMessages is the conversation in MCP's form. The results of one
// turn's calls go together in one user message, and only they: MCP wants
// a user message that carries tool results to carry nothing else.
func samplingMessages(msgs []Message) ([]*mcp.SamplingMessageV2, error) {
	out := make([]*mcp.SamplingMessageV2, 0, len(msgs))
	var results []mcp.Content
	flush := func() {
		if len(results) > 0 {
			out = append(out, &mcp.SamplingMessageV2{Role: "user", Content: results})
			results = nil
		}
	}
	for i := range msgs {
		msg := &msgs[i]
		switch msg.Role {
		case ToolResult:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("message %d: a tool result needs the ID of its call", i)
			}
			r := &mcp.ToolResultContent{ToolUseID: msg.ToolCallID, IsError: msg.IsError}
			if msg.Text != "" {
				r.Content = []mcp.Content{&mcp.TextContent{Text: msg.Text}}
			}
			results = append(results, r)
		case User:
			flush()
			out = append(out, &mcp.SamplingMessageV2{Role: "user", Content: []mcp.Content{&mcp.TextContent{Text: msg.Text}}})
		case Assistant:
			flush()
			content := make([]mcp.Content, 0, 1+len(msg.ToolCalls))
			if msg.Text != "" || len(msg.ToolCalls) == 0 {
				content = append(content, &mcp.TextContent{Text: msg.Text})
			}
			for _, c := range msg.ToolCalls {
				var input map[string]any
				if json.Unmarshal(c.Args, &input) != nil {
					input = nil // not an object: the host takes only one
				}
				content = append(content, &mcp.ToolUseContent{ID: c.ID, Name: c.Name, Input: input})
			}
			out = append(out, &mcp.SamplingMessageV2{Role: "assistant", Content: content})
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	flush()
	return out, nil
}

func (m *samplingModel) response(res *mcp.CreateMessageWithToolsResult) (*Response, error) {
	if res.Role != "" && res.Role != "assistant" {
		return nil, &Error{Model: m.describe(), Message: fmt.Sprintf("the host answered as %q, not as the assistant", res.Role)}
	}
	r := &Response{Message: Message{Role: Assistant, wire: new(wire)}}
	var text strings.Builder
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text.WriteString(c.Text)
		case *mcp.ToolUseContent:
			args := json.RawMessage("{}")
			if len(c.Input) > 0 {
				b, err := json.Marshal(c.Input)
				if err != nil {
					return nil, &Error{Model: m.describe(), Message: fmt.Sprintf("tool call %q: %v", c.Name, err)}
				}
				args = b
			}
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Args: args})
		}
		// Images and audio have no place in an agent's answer; they are dropped.
	}
	r.Text = text.String()
	switch res.StopReason {
	case "endTurn", "stopSequence":
		r.StopReason = StopEnd
	case "toolUse":
		r.StopReason = StopToolUse
	case "maxTokens":
		r.StopReason = StopMaxTokens
	case "":
		r.StopReason = StopEnd
		if len(r.ToolCalls) > 0 {
			r.StopReason = StopToolUse
		}
	default:
		r.StopReason = res.StopReason
	}
	return r, nil
}

// fail turns the host's refusal or a broken session into an *Error.
func (m *samplingModel) fail(ctx context.Context, err error) error {
	e := &Error{Model: m.describe()}
	var rpc *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		e.cause = ctx.Err()
		e.Message = ctx.Err().Error()
	case errors.As(err, &rpc):
		e.Message = fmt.Sprintf("the host refused sampling/createMessage (%d): %s", rpc.Code, rpc.Message)
	default:
		e.Message = "sampling/createMessage: " + err.Error()
	}
	return e
}
