package serve

import (
	"slices"
	"strconv"

	"github.com/toolgen-dev/toolgen/runtime"
)

// appendPlainResult appends the result toCallToolResult makes of r, as
// go-sdk encodes it, when r is plain text or an error (no rich content):
// the lean path then writes it from r without building the go-sdk result
// and its _meta map. ok is false, and dst unchanged, for a rich result.
func appendPlainResult(dst []byte, r runtime.Result) (_ []byte, ok bool) {
	if r.Rich != nil && (r.OK || r.Rich.IsError) {
		return dst, false
	}
	text := r.Result
	if !r.OK {
		if text = r.Error; text == "" {
			text = "tool call failed"
		}
	}
	dst = slices.Grow(dst, 160+len(r.Kind)+len(r.Namespace)+len(text)+len(text)/8)
	// _meta's members in encoding/json's order (sorted): kind, latency_ms, namespace.
	dst = append(dst, `{"_meta":{`...)
	if r.Kind != "" {
		dst = append(dst, `"toolgen.dev/kind":`...)
		dst = appendJSONString(dst, string(r.Kind))
		dst = append(dst, ',')
	}
	dst = append(dst, `"toolgen.dev/latency_ms":`...)
	// encoding/json's form of a float64: whole microseconds in ms are 0 or at
	// least 1e-3 and below 1e16, where it uses 'f'
	dst = strconv.AppendFloat(dst, float64(r.Latency.Microseconds())/1000, 'f', -1, 64)
	if r.Namespace != "" {
		dst = append(dst, `,"toolgen.dev/namespace":`...)
		dst = appendJSONString(dst, r.Namespace)
	}
	dst = append(dst, `},"content":[{"type":"text","text":`...)
	dst = appendJSONString(dst, text)
	dst = append(dst, "}]"...)
	if !r.OK {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}'), true
}
