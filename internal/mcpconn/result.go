package mcpconn

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
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

// decodeResult reads a tools/call result (valid JSON) as go-sdk's client
// does. The common result, text blocks and the plain members, is read
// here without go-sdk's decoder (which allocates tens of KiB per message);
// any other (images, resources, annotations, members this does not know)
// is decoded by go-sdk's own CallToolResult, so nothing is read
// differently.
func decodeResult(raw []byte) (Result, error) {
	if r, ok := decodeTextResult(raw); ok {
		return r, nil
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return Result{}, err
	}
	return toResult(&res), nil
}

// decodeMeta reads a result's _meta object, apart from decodeTextResult
// so that decoding into it does not move that function's Result to the
// heap on every call.
func decodeMeta(raw []byte) (m map[string]any, ok bool) {
	return m, raw[0] == '{' && json.Unmarshal(raw, &m) == nil
}

// decodeTextResult reads a result whose members are content (text blocks
// of type and text only), structuredContent, isError and _meta, with the
// same outcome as go-sdk's decoding and toResult; ok is false for any
// other result.
func decodeTextResult(raw []byte) (r Result, ok bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return Result{}, false
	}
	ok = true
	var content, structured, meta []byte
	jsonrpcline.Members(raw, func(k, v []byte) {
		switch {
		case !ok:
		case jsonrpcline.KeyIs(k, "content"):
			content = v
		case jsonrpcline.KeyIs(k, "structuredContent"):
			structured = v
		case jsonrpcline.KeyIs(k, "_meta"):
			meta = v
		case jsonrpcline.KeyIs(k, "isError"):
			switch string(v) {
			case "true":
				r.IsError = true
			case "false":
				r.IsError = false
			case "null": // leaves it as it was, as decoding does
			default:
				ok = false
			}
		default:
			ok = false
		}
	})
	if !ok {
		return Result{}, false
	}
	r.Content = []mcp.Content{} // go-sdk's is never nil either
	if !jsonrpcline.IsNull(content) {
		if content[0] != '[' {
			return Result{}, false
		}
		jsonrpcline.Elements(content, func(v []byte) {
			if !ok {
				return
			}
			var t *mcp.TextContent
			if t, ok = textBlock(v); ok {
				r.Content = append(r.Content, t)
			}
		})
		if !ok {
			return Result{}, false
		}
	}
	if !jsonrpcline.IsNull(meta) {
		if r.Meta, ok = decodeMeta(meta); !ok {
			return Result{}, false
		}
	}
	if !jsonrpcline.IsNull(structured) {
		// go-sdk holds it as any, and toResult encodes that again
		var v any
		if json.Unmarshal(structured, &v) != nil {
			return Result{}, false
		}
		b, err := json.Marshal(v)
		if err != nil {
			return Result{}, false
		}
		r.Structured = b
	}
	return r, true
}

// textBlock reads a content block of "type":"text" and "text" only.
func textBlock(v []byte) (*mcp.TextContent, bool) {
	if v[0] != '{' {
		return nil, false
	}
	ok, typed := true, false
	t := &mcp.TextContent{}
	jsonrpcline.Members(v, func(k, v []byte) {
		switch {
		case !ok:
		case jsonrpcline.KeyIs(k, "type"):
			typed = string(v) == `"text"`
			ok = typed
		case jsonrpcline.KeyIs(k, "text"):
			if v[0] != '"' || !utf8.Valid(v) {
				ok = false
				return
			}
			t.Text = jsonrpcline.Unquote(v)
		default:
			ok = false
		}
	})
	return t, ok && typed
}
