package mcpconn

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Result of tools/call as the server sent it: every content block (text,
// image, audio, embedded resource, resource link), the structured content,
// the error flag and _meta. It is the one result type of the runtime: a
// served agent hands it on to its host unchanged.
type Result struct {
	Content []mcp.Content
	// Structured is structuredContent as JSON, if any.
	Structured json.RawMessage
	// IsError: the tool reported a failure (not a transport error).
	IsError bool
	Meta    mcp.Meta
}

// TextResult is a result of one text block.
func TextResult(text string) Result {
	return Result{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// PlainText reports whether the result is one text block and nothing else:
// its Text says all of it.
func (r Result) PlainText() bool {
	if len(r.Structured) > 0 || len(r.Meta) > 0 || len(r.Content) != 1 {
		return false
	}
	t, ok := r.Content[0].(*mcp.TextContent)
	return ok && t.Meta == nil && t.Annotations == nil
}

// Text is what a model reads: the text blocks joined by newlines, other
// blocks as their JSON, and the structured content as JSON when there is
// no content at all.
func (r Result) Text() string {
	if len(r.Content) == 1 {
		if t, ok := r.Content[0].(*mcp.TextContent); ok {
			return t.Text
		}
	}
	if len(r.Content) == 0 {
		return string(r.Structured)
	}
	var b strings.Builder
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
			continue
		}
		j, err := json.Marshal(c)
		if err != nil {
			j = []byte(`{"error":"unencodable content"}`)
		}
		b.Write(j)
	}
	return b.String()
}

// Size is about the bytes the result takes in a reply: its text, binary
// data (base64 grows it by a third), structured content and resource text.
func (r Result) Size() int {
	n := len(r.Structured)
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			n += len(c.Text)
		case *mcp.ImageContent:
			n += base64Len(len(c.Data))
		case *mcp.AudioContent:
			n += base64Len(len(c.Data))
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				n += len(c.Resource.Text) + base64Len(len(c.Resource.Blob))
			}
		case *mcp.ResourceLink:
			n += len(c.URI) + len(c.Name) + len(c.Description)
		}
	}
	return n
}

// MarshalJSON writes the result as MCP's CallToolResult: content,
// structuredContent, isError, _meta. A Go tool that returns a Result (as
// runtime.Rich) is encoded this way by its generated wrapper.
func (r Result) MarshalJSON() ([]byte, error) {
	content := r.Content
	if content == nil {
		content = []mcp.Content{}
	}
	var structured any
	if len(r.Structured) > 0 {
		structured = r.Structured
	}
	return json.Marshal(&mcp.CallToolResult{Content: content, StructuredContent: structured, IsError: r.IsError, Meta: r.Meta})
}

// UnmarshalJSON reads MCP's CallToolResult.
func (r *Result) UnmarshalJSON(b []byte) error {
	var res mcp.CallToolResult
	if err := json.Unmarshal(b, &res); err != nil {
		return err
	}
	*r = toResult(&res)
	return nil
}

func base64Len(n int) int { return (n + 2) / 3 * 4 }

func toResult(res *mcp.CallToolResult) Result {
	r := Result{Content: res.Content, IsError: res.IsError, Meta: res.Meta}
	if res.StructuredContent != nil {
		r.Structured, _ = json.Marshal(res.StructuredContent)
	}
	return r
}
