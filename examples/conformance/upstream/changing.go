package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the suite's 2026-07-28 scenarios need of a server behind the agent:
//
//   - input_required_result_prompt (test_input_required_result_prompt
//     through the agent) asks the host's user while it renders, as an
//     input request (elicitation/create for older clients); the agent turns the question
//     into an input-required round of prompts/get
//     (input-required-result-non-tool-request).
//   - trigger_tool_change and trigger_prompt_change change a tool or add
//     or remove a prompt, so this server sends list_changed and the agent's lists
//     change for every host: a host listening (subscriptions/listen) hears
//     of it (server-stateless).
func addChanging(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "input_required_result_prompt", Description: "A prompt that asks the user for its context."},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			// Asked as an input request: a 2026-07-28 client answers it in
			// its retry, and go-sdk sends older clients elicitation/create.
			res, ok := req.Params.InputResponses["context"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"context": &mcp.ElicitParams{
					Message:         "What context should the prompt use?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"context": map[string]any{"type": "string"}}, "required": []string{"context"}},
				}}}, nil
			}
			if res.Action != "accept" {
				return nil, errors.New("no context given: " + res.Action)
			}
			context, _ := res.Content["context"].(string)
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Answer with this context in mind: " + context}},
			}}, nil
		})

	var mu sync.Mutex
	var changes int
	var promptOn bool
	changing := func() {
		mcp.AddTool(s, &mcp.Tool{Name: "changing_tool", Description: fmt.Sprintf("Its description changes with trigger_tool_change (%d changes so far).", changes)},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return text("here"), nil, nil
			})
	}
	changing()
	// A changed description is a changed list: hosts must list again to
	// see it. (Tools a server adds while the agent runs reach its lists
	// only when the agent's surface is built again, so the hook changes a
	// tool the agent already serves.)
	mcp.AddTool(s, &mcp.Tool{Name: "trigger_tool_change", Description: "Changes the description of changing_tool (this server's tool list changes)."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			changes++
			changing()
			return text("changing_tool changed"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "trigger_prompt_change", Description: "Adds or removes the prompt changing_prompt (this server's prompt list changes)."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			if promptOn = !promptOn; promptOn {
				s.AddPrompt(&mcp.Prompt{Name: "changing_prompt", Description: "Comes and goes with trigger_prompt_change."},
					func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
						return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "here"}}}}, nil
					})
				return text("changing_prompt added"), nil, nil
			}
			s.RemovePrompts("changing_prompt")
			return text("changing_prompt removed"), nil, nil
		})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
