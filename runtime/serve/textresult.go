package serve

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// plainByte marks the ASCII bytes encoding/json writes as they are in a
// string with HTML escaping on (go-sdk's json.Marshal): not controls,
// quote, backslash, <, > or &.
var plainByte = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json quotes it with HTML
// escaping: short escapes for \b \f \n \r \t " and \, \u00XX for other
// controls and <>&, \ufffd for each invalid UTF-8 byte, and U+2028/U+2029
// escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if plainByte[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
