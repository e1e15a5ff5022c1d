package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
)

// ArgSchema checks a tool's arguments against its input schema before any
// provider runs. It belongs to a pool tool, so every session of a registry
// shares it; the schema is compiled on the first call, once.
type ArgSchema struct {
	raw  json.RawMessage
	once sync.Once
	mode argCheck
	rs   *jsonschema.Resolved
	flat *flatSchema // checkFlat
}

type argCheck uint8

const (
	checkObject argCheck = iota // the schema asks for an object and nothing more
	checkFull                   // validate against the compiled schema
	checkNone                   // the schema cannot be used: only "is an object" is checked
	checkFlat                   // flatSchema on the bytes; the validator only when it refuses
)

// NewArgSchema returns the check of an input schema, compiled on first use.
func NewArgSchema(raw json.RawMessage) *ArgSchema { return &ArgSchema{raw: NormalizeSchema(raw)} }

// NormalizeSchema makes an input schema an object schema, as MCP requires.
func NormalizeSchema(s json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(s)) == 0 || string(s) == "null" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return s
}

// Check returns the error result of a call to tool whose arguments the
// schema refuses. Arguments are always a JSON object: every provider (an
// MCP tools/call, a Go tool's struct, a REST template) takes one.
//
// The first call compiles the schema. A schema that cannot be used
// (invalid, an unsupported draft, a remote $ref, not an object schema) is
// returned as unusable to that call alone, for the caller to report once
// (a tool.schema_invalid event); its tool's arguments are then only
// checked to be an object: an upstream's bad schema must not refuse every
// call.
func (a *ArgSchema) Check(tool string, args json.RawMessage) (err, unusable error) {
	a.once.Do(func() { unusable = a.compile() })
	if a.mode == checkFlat && a.flat.accepts(args) {
		return nil, unusable
	}
	if a.mode == checkObject || a.mode == checkNone {
		// the fast path of trivial schemas: no decoding
		if c := firstByte(args); c != '{' {
			return fmt.Errorf("invalid arguments for tool %q: expected a JSON object, got %s", tool, jsonKind(c)), unusable
		}
		return nil, unusable
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("invalid JSON arguments for tool %q: %v", tool, err), unusable
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("invalid arguments for tool %q: expected a JSON object, got %s", tool, jsonKind(firstByte(args))), unusable
	}
	if err := a.validate(v); err != nil {
		return fmt.Errorf("invalid arguments for tool %q: %s", tool, describeInvalid(err)), unusable
	}
	return nil, unusable
}

// validate runs the validator; a panic in it (a schema shape it did not
// foresee) lets the call through rather than failing it.
func (a *ArgSchema) validate(v any) (err error) {
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	return a.rs.Validate(v)
}

// compile decides how to check arguments; an error says the schema cannot
// be used, and only "is an object" is checked.
func (a *ArgSchema) compile() error {
	err := a.resolve()
	if err != nil {
		a.mode, a.rs = checkNone, nil
	}
	return err
}

func (a *ArgSchema) resolve() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("schema compiler panicked: %v", r)
		}
	}()
	var s jsonschema.Schema
	if err := json.Unmarshal(a.raw, &s); err != nil {
		return err
	}
	switch s.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2020-12/schema":
	default:
		return fmt.Errorf("unsupported $schema %q (draft-07 and 2020-12 are supported)", s.Schema)
	}
	if s.Type != "" && s.Type != "object" || s.Types != nil && !slices.Contains(s.Types, "object") {
		return fmt.Errorf("the input schema does not describe an object (type %s)", typeText(&s))
	}
	if objectOnly(&s) {
		a.mode = checkObject
		return nil
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	a.mode, a.rs = checkFull, rs
	if f := flatOf(&s); f != nil {
		a.mode, a.flat = checkFlat, f
	}
	return nil
}

// flatSchema is the common input schema of a few scalar arguments: an
// object whose properties each ask for one JSON type (string, boolean,
// number, integer) and nothing else, some required, others perhaps
// refused (additionalProperties: false). Such a schema is checked on the
// arguments' bytes, without decoding them; arguments it does not accept
// plainly go to the validator, for its verdict and its message, so it
// never accepts what the validator would refuse.
type flatSchema struct {
	props    map[string]byte // name → 's' string, 'b' boolean, 'n' number, 'i' integer
	required []string        // at most 64
	closed   bool            // additionalProperties: false
}

// flatKinds are the property types a flat schema may ask for.
var flatKinds = map[string]byte{"string": 's', "boolean": 'b', "number": 'n', "integer": 'i'}

// flatOf returns the flat form of a root schema, or nil if it is not one.
func flatOf(s *jsonschema.Schema) *flatSchema {
	c := *s
	if c.Type != "object" && !(c.Type == "" && len(c.Types) == 1 && c.Types[0] == "object") {
		return nil
	}
	f := &flatSchema{props: make(map[string]byte, len(c.Properties)), required: c.Required}
	if len(f.required) > 64 {
		return nil
	}
	for name, p := range c.Properties {
		if p == nil {
			return nil
		}
		pc := *p
		kind, ok := flatKinds[pc.Type]
		if !ok || pc.Types != nil {
			return nil
		}
		pc.Type = ""
		if !unconstrained(&pc) {
			return nil
		}
		f.props[name] = kind
	}
	if ap := c.AdditionalProperties; ap != nil {
		b, err := json.Marshal(ap)
		if err != nil || string(b) != "false" {
			return nil
		}
		f.closed = true
	}
	c.Type, c.Types, c.Properties, c.Required, c.AdditionalProperties = "", nil, nil, nil, nil
	if !unconstrained(&c) {
		return nil
	}
	return f
}

// accepts reports whether args (any bytes) are a JSON object the schema
// plainly accepts; false means "ask the validator".
func (f *flatSchema) accepts(args []byte) bool {
	if firstByte(args) != '{' || !json.Valid(args) {
		return false
	}
	ok := true
	var seen uint64
	jsonrpcline.Members(args, func(k, v []byte) {
		if !ok {
			return
		}
		name := k[1 : len(k)-1]
		if bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name) {
			ok = false // decoded, the key is another: U+FFFD for a byte that is not UTF-8
			return
		}
		kind, declared := f.props[string(name)]
		if !declared {
			ok = !f.closed
			return
		}
		if ok = kindOf(v, kind); !ok {
			return
		}
		for i, r := range f.required {
			if r == string(name) {
				seen |= 1 << i
			}
		}
	})
	return ok && seen == 1<<len(f.required)-1
}

// kindOf reports whether the JSON value v (valid) is plainly of the kind;
// an integer written with a fraction or exponent is left to the validator,
// and so is a number beyond float64's range (the arguments do not decode).
func kindOf(v []byte, kind byte) bool {
	switch kind {
	case 's':
		return v[0] == '"'
	case 'b':
		return v[0] == 't' || v[0] == 'f'
	case 'n':
		return (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && inRange(v)
	case 'i':
		return (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && bytes.IndexAny(v, ".eE") < 0 && inRange(v)
	}
	return false
}

// inRange reports whether the JSON number v decodes to a float64.
func inRange(v []byte) bool {
	if len(v) <= 300 && bytes.IndexAny(v, "eE") < 0 {
		return true // under 10^300
	}
	_, err := strconv.ParseFloat(string(v), 64)
	return err == nil
}

// objectOnly reports whether a root schema asks for nothing but an object:
// {"type":"object"} with at most annotations and unconstrained properties.
func objectOnly(s *jsonschema.Schema) bool {
	c := *s
	if c.Type == "object" || c.Type == "" && len(c.Types) == 1 && c.Types[0] == "object" {
		c.Type, c.Types = "", nil
	}
	return unconstrained(&c)
}

// unconstrained reports whether a schema accepts every value: it holds
// only annotations (which validate nothing) and unconstrained properties.
func unconstrained(s *jsonschema.Schema) bool {
	c := *s
	c.ID, c.Schema, c.Comment, c.Title, c.Description, c.Format = "", "", "", "", "", ""
	c.Anchor, c.DynamicAnchor, c.ContentEncoding, c.ContentMediaType = "", "", "", ""
	c.Default, c.Examples, c.Deprecated, c.ReadOnly, c.WriteOnly = nil, nil, false, false, false
	c.Defs, c.Definitions, c.Vocabulary, c.Extra, c.PropertyOrder, c.ContentSchema = nil, nil, nil, nil, nil, nil
	for _, p := range c.Properties {
		if p != nil && !unconstrained(p) {
			return false
		}
	}
	c.Properties = nil
	if c.AdditionalProperties != nil && unconstrained(c.AdditionalProperties) {
		c.AdditionalProperties = nil // "additionalProperties": true
	}
	// the schema's own encoding drops empty lists and maps: {} or true is
	// a schema that says nothing
	b, err := json.Marshal(&c)
	return err == nil && (string(b) == "true" || string(b) == "{}")
}

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// jsonKind names the JSON value that starts with c, for messages.
func jsonKind(c byte) string {
	switch {
	case c == 'n':
		return "null"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return "invalid JSON"
}

func typeText(s *jsonschema.Schema) string {
	if s.Type != "" {
		return strconv.Quote(s.Type)
	}
	return fmt.Sprintf("%q", s.Types)
}

// describeInvalid rewords a validation error for a model: which argument
// (as a path like "items[].name") and what is wrong with it, without the
// validator's schema locations or the whole offending value. The
// validator wraps its error once per schema it descends into
// ("validating /properties/n: …"); that chain gives the argument's path.
func describeInvalid(err error) string {
	var labels []string
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			break
		}
		label, ok := strings.CutPrefix(strings.TrimSuffix(err.Error(), ": "+inner.Error()), "validating ")
		if !ok {
			break
		}
		labels = append(labels, label)
		err = inner
	}
	path := argPath(labels)
	msg := rewordInvalid(err.Error())
	if path == "" {
		return msg
	}
	return fmt.Sprintf("property %q: %s", path, msg)
}

// argPath turns the chain of schema locations the validator went through
// into the path of the argument: each step from a schema to its
// "properties/K" adds K, to its "items" adds []. A jump through $ref
// adds nothing.
func argPath(labels []string) string {
	var b strings.Builder
	for i := 1; i < len(labels); i++ {
		prev := labels[i-1]
		if prev == "root" {
			prev = ""
		}
		step, ok := strings.CutPrefix(labels[i], prev+"/")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(step, "properties/"):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(pointerUnescaper.Replace(strings.TrimPrefix(step, "properties/")))
		case step == "items" || step == "additionalItems" || strings.HasPrefix(step, "items/") || strings.HasPrefix(step, "prefixItems/"):
			b.WriteString("[]")
		case step == "additionalProperties" || strings.HasPrefix(step, "patternProperties/"):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteByte('*')
		}
	}
	return b.String()
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

var (
	reType       = regexp.MustCompile(`(?s)^type: .* has type "([a-z]+)", want (one of )?"(.*)"$`)
	reRequired   = regexp.MustCompile(`^required: missing properties: \[(.*)\]$`)
	reAdditional = regexp.MustCompile(`^unexpected additional properties \[(.*)\]$`)
	reEnum       = regexp.MustCompile(`(?s)^enum: .* does not equal any of: (.*)$`)
)

// rewordInvalid says the validator's innermost complaint in the words a
// model acts on, leaving out the offending value (which may be huge).
func rewordInvalid(msg string) string {
	if m := reType.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("expected %s%s, got %s", m[2], m[3], m[1])
	}
	if m := reRequired.FindStringSubmatch(msg); m != nil {
		return plural("missing required propert", "y", "ies", m[1])
	}
	if m := reAdditional.FindStringSubmatch(msg); m != nil {
		return plural("unexpected propert", "y", "ies", m[1])
	}
	if m := reEnum.FindStringSubmatch(msg); m != nil {
		return "must be one of " + m[1]
	}
	return msg
}

// plural words a %q-formatted list of names: `"a" "b"`.
func plural(stem, one, many, list string) string {
	var names []string
	for list != "" {
		q, err := strconv.QuotedPrefix(list)
		if err != nil {
			break
		}
		names = append(names, q)
		list = strings.TrimPrefix(list[len(q):], " ")
	}
	if len(names) == 1 {
		return stem + one + " " + names[0]
	}
	return stem + many + " " + strings.Join(names, ", ")
}
