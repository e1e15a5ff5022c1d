package mcpconn

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SamplingAnswer decodes a host's answer to a sampling request that came
// back as raw JSON (an input-required round, a task's inputResponses). A
// host may answer in the tools-capable shape, content an array; the
// caller gets its first block.
func SamplingAnswer(b []byte) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := json.Unmarshal(b, &res); err == nil && res.Content != nil {
		return &res, nil
	}
	var v2 mcp.CreateMessageWithToolsResult
	if err := json.Unmarshal(b, &v2); err != nil {
		return nil, fmt.Errorf("sampling answer: %w", err)
	}
	out := &mcp.CreateMessageResult{Meta: v2.Meta, Model: v2.Model, Role: v2.Role, StopReason: v2.StopReason}
	if len(v2.Content) > 0 {
		out.Content = v2.Content[0]
	}
	return out, nil
}
