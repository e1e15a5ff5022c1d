package serve

import (
	"bytes"
	"encoding/json"
)

// emptyObjectSchema accepts any arguments object.
var emptyObjectSchema = json.RawMessage(`{"type":"object"}`)

// normalizeSchema returns an input schema go-sdk's Server.AddTool accepts
// (it panics unless "type" is "object"). A valid object schema passes through
// byte for byte, so $schema, $defs and friends reach the client untouched.
// Otherwise the result is the nearest object schema and note says what was
// wrong, for a warning event.
func normalizeSchema(raw json.RawMessage) (schema json.RawMessage, note string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return emptyObjectSchema, ""
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return emptyObjectSchema, "input schema is not a JSON object; serving {\"type\":\"object\"}"
	}
	switch typ := m["type"].(type) {
	case string:
		if typ == "object" {
			return raw, ""
		}
		return emptyObjectSchema, "input schema type is " + typ + ", not object; serving {\"type\":\"object\"}"
	case nil:
		// No type: JSON Schema allows it and many servers omit it around
		// "properties"; stating the type keeps every constraint.
		m["type"] = "object"
		out, err := json.Marshal(m)
		if err != nil {
			return emptyObjectSchema, "input schema cannot be re-encoded; serving {\"type\":\"object\"}"
		}
		return out, ""
	default:
		// ["object","null"] and similar: an arguments object is still
		// required by MCP, so narrow to object and keep the rest.
		m["type"] = "object"
		out, err := json.Marshal(m)
		if err != nil {
			return emptyObjectSchema, "input schema cannot be re-encoded; serving {\"type\":\"object\"}"
		}
		return out, "input schema type is not a single \"object\"; narrowed to object"
	}
}
