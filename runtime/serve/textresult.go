package serve

import (
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
)

// appendTextResult appends res as go-sdk's CallToolResult.MarshalJSON
// writes it, byte for byte, when its content is text blocks only (the
// common proxied answer): those are written here, without reflection,
// which was a seventh of the agent's time per proxied call. _meta and
// structuredContent, when present, still go through encoding/json, as in
// go-sdk. ok is false, and dst unchanged, for any other result (images,
// resources, block annotations or _meta, an input-required result): the
// caller encodes those the reflective way.
func appendTextResult(dst []byte, res *mcp.CallToolResult) (_ []byte, ok bool) {
	if res.NeedsInput() || res.InputRequests != nil || res.RequestState != "" {
		return dst, false
	}
	need := 64
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return dst, false
		}
		need += 32 + len(t.Text) + len(t.Text)/8 // room for some escapes
	}
	dst = slices.Grow(dst, need) // one allocation for the whole line
	start := len(dst)
	dst = append(dst, '{')
	// Members in go-sdk's order: _meta, content, structuredContent, isError.
	if len(res.Meta) > 0 {
		m, err := json.Marshal(map[string]any(res.Meta))
		if err != nil {
			return dst[:start], false
		}
		dst = append(dst, `"_meta":`...)
		dst = append(dst, m...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"content":`...)
	if res.Content == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, c := range res.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":"text","text":`...)
			dst = appendJSONString(dst, c.(*mcp.TextContent).Text)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if res.StructuredContent != nil {
		s, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return dst[:start], false
		}
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, s...)
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}'), true
}

// appendJSONString appends s quoted as encoding/json quotes it with HTML
// escaping (go-sdk's json.Marshal).
func appendJSONString(dst []byte, s string) []byte { return jsonrpcline.AppendString(dst, s) }
