package mcpconn

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestNormalizeSchema(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
		skip bool
	}{
		{nil, `{"type":"object"}`, false},
		{json.RawMessage(`{"type":"object","properties":{}}`), `{"type":"object","properties":{}}`, false},
		{map[string]any{"type": "object"}, `{"type":"object"}`, false},
		{json.RawMessage(`{"properties":{"a":{}}}`), `{"properties":{"a":{}},"type":"object"}`, false},
		{json.RawMessage(`{"type":["null","object"]}`), `{"type":"object"}`, false},
		{json.RawMessage(`{"type":"string"}`), ``, true},
		{json.RawMessage(`{"type":["string","number"]}`), ``, true},
		{json.RawMessage(`{"type":42}`), ``, true},
		{json.RawMessage(`[1]`), `{"type":"object"}`, false},
		{json.RawMessage(`"object"`), `{"type":"object"}`, false},
		{json.RawMessage(`null`), `{"type":"object"}`, false},
		{json.RawMessage(`true`), `{"type":"object"}`, false},
		{func() {}, `{"type":"object"}`, false}, // cannot be marshalled
	} {
		got, note, skip := normalizeSchema(tc.in)
		if skip != tc.skip || string(got) != tc.want {
			t.Errorf("normalizeSchema(%v) = %s, skip %v (%s); want %s, skip %v", tc.in, got, skip, note, tc.want, tc.skip)
		}
		if raw, _ := json.Marshal(tc.in); string(raw) != string(got) && note == "" && !skip {
			t.Errorf("normalizeSchema(%v) changed the schema without a note", tc.in)
		}
	}
}

// FuzzNormalizeSchema: any JSON a server sends yields either a skip or an
// object schema that is valid JSON, never a panic.
func FuzzNormalizeSchema(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `[]`, `{"type":["object"]}`, `{"type":{"a":1}}`, `1e999`, `{"type":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		got, _, skip := normalizeSchema(v)
		if skip {
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(got, &obj); err != nil || obj["type"] != "object" {
			t.Fatalf("normalizeSchema(%s) = %s", s, got)
		}
	})
}

func TestJSONLines(t *testing.T) {
	long := `{"text":"` + strings.Repeat("y", 200<<10) + `"}`
	in := "banner line\n\n" + `{"a":1}` + "\r\n" + "  \t\n" + `{"broken":` + "\n" + long + "\n" + `[{"b":2}]` + "\nnot json {\n"
	var garbage []string
	j := newJSONLines(io.NopCloser(strings.NewReader(in)), 1<<20, func(l string) { garbage = append(garbage, l) })
	out, err := io.ReadAll(j)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":1}` + "\n" + long + "\n" + `[{"b":2}]` + "\n"; string(out) != want {
		t.Errorf("passed through %d bytes, want %d", len(out), len(want))
	}
	if strings.Join(garbage, "|") != `banner line|{"broken":|not json {` {
		t.Errorf("garbage = %q", garbage)
	}

	j = newJSONLines(io.NopCloser(strings.NewReader(long+"\n")), 1<<10, func(string) {})
	if _, err := io.ReadAll(j); err == nil || !strings.Contains(err.Error(), "1024-byte limit") {
		t.Errorf("over the limit: %v", err)
	}
}
