package search

import (
	"encoding/json"
	"slices"
)

// SchemaParams lists the top-level property names of a tool's input schema,
// sorted: the Params of its Doc. It is the one rule for the generator and
// the runtime; a schema that is not a JSON object with properties has none
// (nil).
func SchemaParams(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
