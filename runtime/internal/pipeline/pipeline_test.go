package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Which schemas take the no-decoding path.
func TestArgsObjectOnly(t *testing.T) {
	for schema, want := range map[string]argCheck{
		``:                  checkObject,
		`{"type":"object"}`: checkObject,
		`{"type":"object","properties":{},"additionalProperties":true,"$schema":"http://json-schema.org/draft-07/schema#"}`: checkObject,
		`{"type":"object","description":"x","properties":{"q":{"description":"free text"}}}`:                                checkObject,
		`{"type":"object","properties":{"q":{"type":"string"}}}`:                                                            checkFlat,
		`{"type":"object","required":["q"]}`:                                                                                checkFlat,
		`{"type":"object","additionalProperties":false}`:                                                                    checkFlat,
		`{"properties":{"q":{"type":"string"}}}`:                                                                            checkFull,
		`{"type":"string"}`:                                                                                                 checkNone,
		`{"type":["object","null"],"properties":{"q":{"type":"string"}}}`:                                                   checkFull,
		`not json`: checkNone,
	} {
		a := NewArgSchema(json.RawMessage(schema))
		mode := checkFull
		if a.resolve() != nil {
			mode = checkNone
		} else {
			mode = a.mode
		}
		if mode != want {
			t.Errorf("%s: mode %d, want %d", schema, mode, want)
		}
	}
}

// Sessions share a pool tool's ArgSchema: concurrent first calls compile
// it once, only one of them hears that a schema is unusable, and all
// validate in parallel (run with -race).
func TestArgSchemaCompiledOnce(t *testing.T) {
	for schema, wantMode := range map[string]argCheck{
		`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`:              checkFlat,
		`{"type":"object","properties":{"days":{"type":"integer","minimum":1}},"required":["city"]}`: checkFull,
		`{"type":"string"}`: checkNone,
	} {
		a := NewArgSchema(json.RawMessage(schema))
		var mu sync.Mutex
		var unusable, refused int
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				err, bad := a.Check("w", json.RawMessage(`{"n":1}`))
				mu.Lock()
				defer mu.Unlock()
				if bad != nil {
					unusable++
				}
				if err != nil {
					refused++
				}
			})
		}
		wg.Wait()
		if a.mode != wantMode {
			t.Errorf("%s: mode %d, want %d", schema, a.mode, wantMode)
		}
		if wantMode == checkNone && (unusable != 1 || refused != 0) {
			t.Errorf("%s: %d calls told of the unusable schema (want 1), %d refused (want 0)", schema, unusable, refused)
		}
		if wantMode == checkFull && (unusable != 0 || refused != 16 || a.rs == nil) {
			t.Errorf("%s: %d unusable, %d refused of 16", schema, unusable, refused)
		}
	}
}

// The budget refuses the output that would pass it and counts nothing
// for it.
func TestBudget(t *testing.T) {
	b := Budget{Limit: 10}
	if err := b.Charge(strings.Repeat("x", 32)); err != nil { // 8 tokens
		t.Fatal(err)
	}
	if err := b.Charge(strings.Repeat("x", 12)); !errors.Is(err, ErrBudget) { // 3 more: 11
		t.Fatalf("over budget: %v", err)
	}
	if err := b.Charge(strings.Repeat("x", 8)); err != nil { // 2 more: 10
		t.Fatalf("within budget: %v", err)
	}
}

// ErrorText cuts on a rune boundary and says how much it cut.
func TestErrorText(t *testing.T) {
	msg := strings.Repeat("a", MaxErrorBytes-1) + "€" + strings.Repeat("b", 100)
	got := ErrorText(nil, msg)
	want := strings.Repeat("a", MaxErrorBytes-1) + fmt.Sprintf("… (%d bytes truncated)", 103)
	if got != want {
		t.Errorf("ErrorText: …%q", got[len(got)-40:])
	}
	if ErrorText(nil, errors.New("short").Error()) != "short" {
		t.Error("a short error changed")
	}
}

// A flat schema accepts on the bytes only what the validator accepts, and
// leaves the rest (with its message) to the validator.
func TestFlatSchemaAgreesWithValidator(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"number","title":"B"},"c":{"type":"boolean","default":true}},"required":["a","c"]}`,
		`{"type":"object","properties":{"s":{"type":"string"}}}`,
	}
	args := []string{
		`{"message":"hi"}`, `{"message":"hi","x":1}`, `{}`, `{"message":3}`, `{"message":null}`,
		`{"message":"a","message":"b"}`, `{"message":1,"message":"b"}`, `{"mess\u0061ge":"hi"}`,
		`{"a":1,"c":false}`, `{"a":1.0,"c":true}`, `{"a":1e2,"c":true}`, `{"a":-3,"b":2.5,"c":true}`,
		`{"a":"1","c":true}`, `{"a":1}`, `{"a":1,"c":"true"}`, `{"a":1,"b":"x","c":true}`, `{"s":"x","t":[1]}`,
		`{"s":{}}`, `[]`, `"x"`, `{"s":"x"`, ` {"s" : "x" } `, `{"a":12345678901234567890,"c":true}`,
	}
	for _, schema := range schemas {
		flat := NewArgSchema(json.RawMessage(schema))
		full := NewArgSchema(json.RawMessage(schema))
		flat.Check("t", json.RawMessage(`{}`))
		if flat.mode != checkFlat {
			t.Fatalf("%s: not flat (mode %d)", schema, flat.mode)
		}
		full.Check("t", json.RawMessage(`{}`))
		full.mode = checkFull
		for _, a := range args {
			got, _ := flat.Check("t", json.RawMessage(a))
			want, _ := full.Check("t", json.RawMessage(a))
			// (the validator lists unexpected properties in map order)
			if (got == nil) != (want == nil) {
				t.Errorf("%s\n%s: flat %v, validator %v", schema, a, got, want)
			}
		}
	}
	for _, notFlat := range []string{
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		`{"type":"object","properties":{"u":{"type":"string","enum":["c","f"]}}}`,
		`{"type":"object","properties":{"o":{"type":"object"}}}`,
		`{"type":"object","properties":{"s":{"type":["string","null"]}}}`,
		`{"type":"object","properties":{"s":{"type":"string"}},"additionalProperties":{"type":"string"}}`,
		`{"type":"object","properties":{"s":{"type":"string"}},"minProperties":1}`,
	} {
		a := NewArgSchema(json.RawMessage(notFlat))
		a.Check("t", json.RawMessage(`{}`))
		if a.mode != checkFull {
			t.Errorf("%s: mode %d, want the validator", notFlat, a.mode)
		}
	}
}
