package pipeline

import (
	"encoding/json"
	"fmt"
)

// CheckOutput returns why a result's structuredContent breaks the tool's
// output schema (the same validator and compiled schema as the arguments'
// check), or nil. A tool with an output schema must return structured
// content (MCP 2025-06-18, tools: output schema); a schema the validator
// cannot use checks nothing and is reported as unusable.
func (a *ArgSchema) CheckOutput(tool string, structured json.RawMessage) (err, unusable error) {
	a.once.Do(func() { unusable = a.compile() })
	if a.mode == checkNone {
		return nil, unusable
	}
	if len(structured) == 0 {
		return fmt.Errorf("tool %q has an output schema but returned no structured content", tool), unusable
	}
	var v any
	if err := json.Unmarshal(structured, &v); err != nil {
		return fmt.Errorf("tool %q returned structured content that is not JSON: %v", tool, err), unusable
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("tool %q returned structured content that is not an object", tool), unusable
	}
	if a.mode == checkFull || a.mode == checkFlat {
		if err := a.validate(v); err != nil {
			return fmt.Errorf("tool %q returned a result that does not match its output schema: %s", tool, describeInvalid(err)), unusable
		}
	}
	return nil, unusable
}
