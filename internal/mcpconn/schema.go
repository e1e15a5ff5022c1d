package mcpconn

import (
	"bytes"
	"encoding/json"
	"fmt"
)

var objectSchema = json.RawMessage(`{"type":"object"}`)

// normalizeSchema makes an upstream inputSchema safe to re-serve: MCP tool
// arguments are always a JSON object, and the go-sdk server panics on a
// schema whose type is not "object". It returns the schema to use, a note
// for the event when it changed something, and skip=true when the tool
// cannot take object arguments at all.
func normalizeSchema(v any) (schema json.RawMessage, note string, skip bool) {
	if v == nil {
		return objectSchema, "no inputSchema: using {\"type\":\"object\"}", false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return objectSchema, "inputSchema is not JSON: using {\"type\":\"object\"}", false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return objectSchema, fmt.Sprintf("inputSchema is %s, not an object: using {\"type\":\"object\"}", jsonKind(raw)), false
	}
	t, ok := obj["type"]
	if !ok {
		obj["type"] = json.RawMessage(`"object"`)
		return mustMarshal(obj), "inputSchema has no type: set to \"object\"", false
	}
	var name string
	if json.Unmarshal(t, &name) == nil {
		if name == "object" {
			return raw, "", false
		}
		return nil, fmt.Sprintf("inputSchema type is %q, not \"object\": tool skipped", name), true
	}
	// A type list such as ["object","null"]: keep the object alternative.
	var names []string
	if json.Unmarshal(t, &names) == nil {
		for _, n := range names {
			if n == "object" {
				obj["type"] = json.RawMessage(`"object"`)
				return mustMarshal(obj), fmt.Sprintf("inputSchema type %s narrowed to \"object\"", t), false
			}
		}
	}
	return nil, fmt.Sprintf("inputSchema type %s does not allow an object: tool skipped", t), true
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return objectSchema
	}
	return b
}

func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
