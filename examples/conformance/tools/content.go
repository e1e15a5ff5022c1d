package tools

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// The conformance scenarios that need more than text: content blocks
// (a Go tool answers with them through runtime.Rich) and what a tool may
// ask of the host during its call (runtime.Progress, Log, Sample, Elicit).

// redPixel is a 1x1 red PNG.
var redPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// silence is a tiny WAV file: a header and two silent samples.
var silence, _ = base64.StdEncoding.DecodeString("UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAAAAAAA")

// ImageContent answers tools-call-image.
func ImageContent(ctx context.Context, _ NoArgs) (*runtime.Rich, error) {
	return &runtime.Rich{Content: []mcp.Content{&mcp.ImageContent{Data: redPixel, MIMEType: "image/png"}}}, nil
}

// AudioContent answers tools-call-audio.
func AudioContent(ctx context.Context, _ NoArgs) (*runtime.Rich, error) {
	return &runtime.Rich{Content: []mcp.Content{&mcp.AudioContent{Data: silence, MIMEType: "audio/wav"}}}, nil
}

// EmbeddedResource answers tools-call-embedded-resource.
func EmbeddedResource(ctx context.Context, _ NoArgs) (*runtime.Rich, error) {
	return &runtime.Rich{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
		URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
	}}}}, nil
}

// MultipleContentTypes answers tools-call-mixed-content.
func MultipleContentTypes(ctx context.Context, _ NoArgs) (*runtime.Rich, error) {
	return &runtime.Rich{Content: []mcp.Content{
		&mcp.TextContent{Text: "Multiple content types test:"},
		&mcp.ImageContent{Data: redPixel, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
		}},
	}}, nil
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ToolWithLogging answers tools-call-with-logging: three log messages
// 50 ms apart.
func ToolWithLogging(ctx context.Context, _ NoArgs) (string, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return "", err
			}
		}
		runtime.Log(ctx, "info", "conformance", msg)
	}
	return "Tool with logging executed successfully", nil
}

// ToolWithProgress answers tools-call-with-progress: 0, 50 and 100 of 100.
func ToolWithProgress(ctx context.Context, _ NoArgs) (string, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return "", err
			}
		}
		runtime.Progress(ctx, p, 100, "")
	}
	return "Tool with progress executed successfully", nil
}

// SamplingArgs is the prompt for the host's model.
type SamplingArgs struct {
	Prompt string `json:"prompt"`
}

// Sampling answers tools-call-sampling: it asks the host's model.
func Sampling(ctx context.Context, a SamplingArgs) (string, error) {
	res, err := runtime.Sample(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: a.Prompt}}},
		MaxTokens: 100,
	})
	if err != nil {
		return "", err
	}
	text := ""
	if tc, ok := res.Content.(*mcp.TextContent); ok {
		text = tc.Text
	}
	return "LLM response: " + text, nil
}

// ElicitationArgs is the message shown to the user.
type ElicitationArgs struct {
	Message string `json:"message"`
}

// Elicitation answers tools-call-elicitation: it asks the host's user.
func Elicitation(ctx context.Context, a ElicitationArgs) (string, error) {
	return elicit(ctx, a.Message, map[string]any{
		"type": "object",
		"properties": map[string]any{
			"username": map[string]any{"type": "string", "description": "User's response"},
			"email":    map[string]any{"type": "string", "description": "User's email address"},
		},
		"required": []string{"username", "email"},
	})
}

// ElicitationDefaults answers elicitation-sep1034-defaults: a default for
// every primitive type.
func ElicitationDefaults(ctx context.Context, _ NoArgs) (string, error) {
	return elicit(ctx, "Please review and update the form fields with defaults", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
			"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
			"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
			"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
		},
	})
}

// ElicitationEnums answers elicitation-sep1330-enums: the five enum forms.
func ElicitationEnums(ctx context.Context, _ NoArgs) (string, error) {
	titled := func(pairs ...string) []map[string]any {
		var out []map[string]any
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, map[string]any{"const": pairs[i], "title": pairs[i+1]})
		}
		return out
	}
	return elicit(ctx, "Please select options from the enum fields", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"untitledSingle": map[string]any{"type": "string", "description": "Select one option", "enum": []string{"option1", "option2", "option3"}},
			"titledSingle": map[string]any{"type": "string", "description": "Select one option with titles",
				"oneOf": titled("value1", "First Option", "value2", "Second Option", "value3", "Third Option")},
			"legacyEnum": map[string]any{"type": "string", "description": "Select one option (legacy)",
				"enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
			"untitledMulti": map[string]any{"type": "array", "description": "Select multiple options",
				"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
			"titledMulti": map[string]any{"type": "array", "description": "Select multiple options with titles",
				"items": map[string]any{"anyOf": titled("value1", "First Choice", "value2", "Second Choice", "value3", "Third Choice")}},
		},
	})
}

func elicit(ctx context.Context, message string, schema map[string]any) (string, error) {
	res, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: schema})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Elicitation completed: action=%s, content=%v", res.Action, res.Content), nil
}
