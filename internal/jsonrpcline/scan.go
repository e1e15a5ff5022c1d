package jsonrpcline

import (
	"bytes"
	"encoding/json"
)

// The scanner below walks a message's members without decoding it: the
// served path reads a tools/call's id, method and params, and a client
// finds the id of a response, this way (a pass over bytes that are
// already known to be valid JSON, no allocation).

// Members calls fn with each member of the JSON object b (valid JSON), the
// key still quoted, in order; a later duplicate key is seen after an
// earlier one.
func Members(b []byte, fn func(key, value []byte)) {
	i := SkipSpace(b, 0) + 1 // past '{'
	for {
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return
		}
		if b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
		end := StringEnd(b, i)
		key := b[i:end]
		i = SkipSpace(b, SkipSpace(b, end)+1) // past ':'
		vend := valueEnd(b, i)
		fn(key, b[i:vend])
		i = vend
	}
}

// Pick sets *vals[i] to the value of the member names[i] of the JSON
// object b (valid JSON), for the members b has; the last of repeated keys
// wins, as when decoding. The values are slices of b.
func Pick(b []byte, names []string, vals ...*[]byte) {
	Members(b, func(key, value []byte) {
		for i, name := range names {
			if KeyIs(key, name) {
				*vals[i] = value
				return
			}
		}
	})
}

// Elements calls fn with each element of the JSON array b (valid JSON).
func Elements(b []byte, fn func(value []byte)) {
	i := SkipSpace(b, 0) + 1 // past '['
	for {
		i = SkipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return
		}
		if b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
		end := valueEnd(b, i)
		fn(b[i:end])
		i = end
	}
}

// valueEnd returns the index just past the JSON value at b[i] (valid JSON).
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = StringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && bytes.IndexByte([]byte(",}] \t\r\n"), b[j]) < 0 {
		j++
	}
	return j
}

// StringEnd returns the index just past the string starting at b[i], or
// -1 if it does not end. b need not be valid JSON.
func StringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// KeyIs reports whether the quoted key is name.
func KeyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') >= 0 {
		return Unquote(key) == name
	}
	return len(key) == len(name)+2 && string(key[1:len(key)-1]) == name
}

// Unquote is the text of a JSON string token (escapes decoded only when
// there are any), or "" for anything else.
func Unquote(tok []byte) string {
	if len(tok) < 2 || tok[0] != '"' {
		return ""
	}
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1])
	}
	var s string
	json.Unmarshal(tok, &s)
	return s
}

// IsNull reports whether the value token is absent or JSON null.
func IsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// Int is the integer a JSON number token holds, as go-sdk reads an id (a
// float64 made an int64); ok is false for anything else, for a fraction,
// and beyond ±2^53, where a float64 is no longer exact.
func Int(tok []byte) (n int64, ok bool) {
	i, neg := 0, false
	if len(tok) > 0 && tok[0] == '-' {
		i, neg = 1, true
	}
	if i == len(tok) || len(tok)-i > 16 {
		return 0, false
	}
	for ; i < len(tok); i++ {
		c := tok[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n > 1<<53 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
