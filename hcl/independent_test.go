package hcl

import (
	"slices"
	"testing"
)

// TestIndependentErrorsInOneRun: a block that fails to decode does not
// hide the mistakes of the others, in either syntax; nothing is said of
// the failed block beyond its own error (a misspelt policy is not also a
// tool without implementation).
func TestIndependentErrorsInOneRun(t *testing.T) {
	want := []string{"Unknown policy", "UNKNOWN_ARG", "UNKNOWN_ARG", "Unknown tool"}
	for name, src := range map[string]string{"main.hcl.json": specJSON, "main.hcl": specNative} {
		_, _, diags := LoadFiles("spec", map[string][]byte{name: []byte(src)})
		var got []string
		for _, d := range diags {
			got = append(got, d.Summary)
		}
		unknownArg := "Unsupported argument"
		if name == "main.hcl.json" {
			unknownArg = "Extraneous JSON object property"
		}
		w := slices.Clone(want)
		for i := range w {
			if w[i] == "UNKNOWN_ARG" {
				w[i] = unknownArg
			}
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: %q, want %q", name, got, w)
		}
	}
}

const specJSON = `{
  "policy": {"p": {"builtin": "fs_read", "allowed_paths": ["."]}},
  "tool": {
    "a": {"description": "A.", "policy": "policy.nope"},
    "b": {"description": "B.", "polcy": "policy.p"}
  },
  "server": {"s": {"type": "stdio", "command": "x"}},
  "agent": {"x": {"tools": {"use": ["tool.a", "tool.zzz"]}}}
}
`

const specNative = `policy "p" {
  builtin = "fs_read"
  allowed_paths = ["."]
}
tool "a" {
  description = "A."
  policy = policy.nope
}
tool "b" {
  description = "B."
  polcy = policy.p
}
server "s" {
  type = "stdio"
  command = "x"
}
agent "x" {
  tools { use = [tool.a, tool.zzz] }
}
`
