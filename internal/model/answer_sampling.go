package model

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AnswerSampling answers an MCP server's sampling/createMessage with m, a
// spec's model: the reverse of NewSampling, for servers whose sampling
// the agent's own model answers (server { sampling = "model" }). The
// system prompt and the text of the messages are sent; maxTokens,
// temperature and stop sequences are the model block's, which the server
// cannot raise. A message with an image or audio is refused with the
// reason, since a model block is asked in text here. name is the model's
// name in the result ("gpt-4.1-mini").
func AnswerSampling(ctx context.Context, m Model, name string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if p == nil || len(p.Messages) == 0 {
		return nil, fmt.Errorf("sampling/createMessage without messages")
	}
	req := &Request{System: p.SystemPrompt}
	for i, msg := range p.Messages {
		text, ok := msg.Content.(*mcp.TextContent)
		if !ok {
			return nil, fmt.Errorf("sampling/createMessage: message %d is %T; the agent's model is asked in text only", i+1, msg.Content)
		}
		role := User
		if msg.Role == "assistant" {
			role = Assistant
		}
		req.Messages = append(req.Messages, Message{Role: role, Text: text.Text})
	}
	resp, err := m.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	stop := resp.StopReason
	switch stop {
	case StopEnd:
		stop = "endTurn"
	case StopMaxTokens:
		stop = "maxTokens"
	}
	return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: resp.Text}, Model: name, Role: "assistant", StopReason: stop}, nil
}
