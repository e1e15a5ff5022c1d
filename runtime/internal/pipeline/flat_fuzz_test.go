package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
)

// The flat check never accepts arguments the validator refuses.
func FuzzFlatSchema(f *testing.F) {
	schemas := []string{
		`{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"}},"required":["s"],"additionalProperties":false}`,
		`{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"\ufffd":{"type":"integer"}}}`,
		`{"type":"object","properties":{"i":{"type":"integer"}},"required":["i","x"]}`,
	}
	for _, a := range []string{`{"s":"x","n":1.5,"i":2,"b":true}`, `{"s":"x","i":1e2}`, `{"s":"","\u0073":1}`, `{"i":0,"x":null}`} {
		f.Add([]byte(a))
	}
	var flat, full []*ArgSchema
	for _, s := range schemas {
		a := NewArgSchema(json.RawMessage(s))
		a.Check("t", json.RawMessage(`{}`))
		if a.mode != checkFlat {
			f.Fatalf("%s: not flat", s)
		}
		v := NewArgSchema(json.RawMessage(s))
		v.Check("t", json.RawMessage(`{}`))
		v.mode = checkFull
		flat, full = append(flat, a), append(full, v)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for i := range flat {
			got, _ := flat[i].Check("t", args)
			want, _ := full[i].Check("t", args)
			if got == nil && want != nil {
				t.Fatalf("%s\n%q: flat accepts, validator: %v", schemas[i], args, want)
			}
		}
	})
}

// Arguments the validator refuses are refused on the flat path too: a
// number beyond float64 (which the arguments cannot be decoded with) and
// a key that is not UTF-8 (which decodes to U+FFFD, perhaps a declared
// property's name).
func TestFlatSchemaRefusesWhatTheValidatorRefuses(t *testing.T) {
	for schema, args := range map[string][]string{
		`{"type":"object","properties":{"n":{"type":"number"},"i":{"type":"integer"}}}`: {
			`{"n":1e400}`, `{"i":1` + strings.Repeat("0", 310) + `}`, `{"n":-1e309}`,
		},
		`{"type":"object","properties":{"\ufffd":{"type":"integer"}}}`: {
			"{\"\xbb\":true}",
		},
	} {
		a := NewArgSchema(json.RawMessage(schema))
		a.Check("t", json.RawMessage(`{}`))
		if a.mode != checkFlat {
			t.Fatalf("%s: not flat", schema)
		}
		for _, arg := range args {
			if err, _ := a.Check("t", json.RawMessage(arg)); err == nil {
				t.Errorf("%s: %.40q accepted", schema, arg)
			}
		}
	}
}
