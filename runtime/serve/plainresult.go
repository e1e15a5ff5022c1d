package serve

import (
	"encoding/json"
	"math"
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
	dst = appendJSONFloat(dst, float64(r.Latency.Microseconds())/1000)
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

// appendMeta appends m as json.Marshal writes a map[string]any, keys
// sorted: by hand when every value is a string or a finite float64 (what
// the runtime puts in _meta), else through json.Marshal.
func appendMeta(dst []byte, m map[string]any) ([]byte, error) {
	var buf [8]string
	keys := buf[:0]
	for k, v := range m {
		switch v := v.(type) {
		case string:
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return marshalAppend(dst, m)
			}
		default:
			return marshalAppend(dst, m)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		switch v := m[k].(type) {
		case string:
			dst = appendJSONString(dst, v)
		case float64:
			dst = appendJSONFloat(dst, v)
		}
	}
	return append(dst, '}'), nil
}

func marshalAppend(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendJSONFloat appends a finite f as encoding/json writes a float64:
// the shortest form, in exponent form below 1e-6 and from 1e21 on, with
// a one-digit negative exponent not padded (1e-7, not 1e-07).
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
