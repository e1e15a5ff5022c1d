package templates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The input schema of a Go function tool is built from the type
// information of its Args struct, mirroring what invopop/jsonschema's
// Reflector{ExpandedStruct: true, DoNotReference: true} produces by
// reflection, plus field doc comments as descriptions (as its
// AddGoComments does). Reflection would need the user's type in a running
// program — a generated main run with `go run` per generate, which costs
// a build and needs invopop in the user's module — while go/types is
// already loaded to check the signature. The conventions mirrored:
//
//   - property names from the json tag; "-" and unexported fields skipped;
//     embedded structs without a json name and `json:",inline"` flattened;
//   - every property required unless its json tag has omitempty/omitzero,
//     and `jsonschema:"required"` makes it required anyway;
//   - structs are objects with additionalProperties false, maps objects
//     with additionalProperties of the value (none for interface values),
//     slices arrays ([]byte a base64 string), time.Time a date-time string,
//     json.RawMessage and interfaces an empty schema, pointers their target;
//   - the ",string" json option turns numbers and booleans into strings;
//   - jsonschema tag keywords: title, description, format, pattern,
//     minLength, maxLength, minimum, maximum, exclusiveMinimum,
//     exclusiveMaximum, multipleOf, minItems, maxItems, uniqueItems, enum,
//     default, example; and the jsonschema_description tag;
//   - go-sdk's convention (google/jsonschema-go) as well: a jsonschema tag
//     that is not in that keyword form is the description, whole.
//
// Anything else (channels, funcs, complex numbers, recursive types,
// unknown tag keywords) is reported, never silently dropped.

// keywordTag is a jsonschema tag in invopop's keyword form ("-",
// "required", "key=value,…"); any other tag is go-sdk's form, a
// description.
var keywordTag = regexp.MustCompile(`^(-|required)(,|$)|^[A-Za-z_][A-Za-z0-9_]*=`)

// schemaBuilder builds schemas for one package's types; docs maps the
// position of a struct field's name to its doc comment.
type schemaBuilder struct {
	docs     map[token.Pos]string
	visiting map[*types.Named]bool
	problems []string
}

// object is a JSON object that keeps its keys in insertion order.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

func (o *object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (b *schemaBuilder) problem(format string, args ...any) {
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

// schemaOf returns the schema of a type.
func (b *schemaBuilder) schemaOf(t types.Type, where string) *object {
	s := newObject()
	if n, ok := types.Unalias(t).(*types.Named); ok {
		obj := n.Obj()
		if obj.Pkg() != nil {
			switch obj.Pkg().Path() + "." + obj.Name() {
			case "time.Time":
				s.set("type", "string")
				s.set("format", "date-time")
				return s
			case "encoding/json.RawMessage":
				return s
			case "net/url.URL":
				s.set("type", "string")
				s.set("format", "uri")
				return s
			case "net.IP":
				s.set("type", "string")
				s.set("format", "ipv4")
				return s
			}
		}
		if b.visiting[n] {
			b.problem("%s: recursive type %s is not supported in tool arguments", where, obj.Name())
			return s
		}
		b.visiting[n] = true
		defer delete(b.visiting, n)
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsInteger != 0:
			s.set("type", "integer")
		case u.Info()&types.IsFloat != 0:
			s.set("type", "number")
		case u.Info()&types.IsBoolean != 0:
			s.set("type", "boolean")
		case u.Info()&types.IsString != 0:
			s.set("type", "string")
		default:
			b.problem("%s: type %s cannot be decoded from JSON", where, t)
		}
	case *types.Pointer:
		return b.schemaOf(u.Elem(), where)
	case *types.Slice:
		if e, ok := u.Elem().Underlying().(*types.Basic); ok && e.Kind() == types.Byte {
			s.set("type", "string")
			s.set("contentEncoding", "base64")
			return s
		}
		s.set("type", "array")
		s.set("items", b.schemaOf(u.Elem(), where+"[]"))
	case *types.Array:
		s.set("type", "array")
		s.set("items", b.schemaOf(u.Elem(), where+"[]"))
		s.set("minItems", u.Len())
		s.set("maxItems", u.Len())
	case *types.Map:
		s.set("type", "object")
		k, _ := u.Key().Underlying().(*types.Basic)
		switch {
		case k != nil && k.Info()&types.IsInteger != 0:
			s.set("patternProperties", map[string]any{"^[0-9]+$": b.schemaOf(u.Elem(), where+"{}")})
			s.set("additionalProperties", false)
		case k != nil && k.Info()&types.IsString != 0:
			if _, isIface := u.Elem().Underlying().(*types.Interface); !isIface {
				s.set("additionalProperties", b.schemaOf(u.Elem(), where+"{}"))
			}
		default:
			b.problem("%s: map key type %s cannot be decoded from JSON", where, u.Key())
		}
	case *types.Interface:
		// any value
	case *types.Struct:
		s.set("type", "object")
		props, required := newObject(), []string{}
		b.fields(u, where, props, &required)
		s.set("properties", props)
		if len(required) > 0 {
			s.set("required", required)
		}
		s.set("additionalProperties", false)
	default:
		b.problem("%s: type %s cannot be decoded from JSON", where, t)
	}
	return s
}

// fields adds a struct's fields to props, flattening embedded structs.
func (b *schemaBuilder) fields(st *types.Struct, where string, props *object, required *[]string) {
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := reflect.StructTag(st.Tag(i))
		jsonTags := strings.Split(tag.Get("json"), ",")
		schemaTags := splitUnescaped(tag.Get("jsonschema"))
		sdkDescription := ""
		if raw := tag.Get("jsonschema"); raw != "" && !keywordTag.MatchString(raw) {
			// go-sdk's convention (google/jsonschema-go): the whole tag is
			// the description when it does not start with WORD=.
			sdkDescription, schemaTags = raw, []string{""}
		}
		if jsonTags[0] == "-" && len(jsonTags) == 1 || schemaTags[0] == "-" {
			continue
		}
		if jsonTags[0] == "" && f.Embedded() || hasOption(jsonTags, "inline") {
			t := f.Type()
			if p, ok := t.Underlying().(*types.Pointer); ok {
				t = p.Elem()
			}
			if inner, ok := t.Underlying().(*types.Struct); ok {
				b.fields(inner, where, props, required)
				continue
			}
		}
		if !f.Exported() {
			continue
		}
		name := f.Name()
		if jsonTags[0] != "" {
			name = jsonTags[0]
		}
		isRequired := !hasOption(jsonTags, "omitempty") && !hasOption(jsonTags, "omitzero")
		p := b.schemaOf(f.Type(), where+"."+name)
		if hasOption(jsonTags, "string") {
			if t, _ := p.get("type"); t == "integer" || t == "number" || t == "boolean" {
				p.set("type", "string")
			}
		}
		if sdkDescription != "" {
			p.set("description", sdkDescription)
		}
		if d := tag.Get("jsonschema_description"); d != "" {
			p.set("description", d)
		}
		for _, kw := range schemaTags {
			if kw == "required" {
				isRequired = true
				continue
			}
			if kw == "" {
				continue
			}
			b.keyword(p, kw, where+"."+name)
		}
		if _, ok := p.get("description"); !ok {
			if d := b.docs[f.Pos()]; d != "" {
				p.set("description", d)
			}
		}
		props.set(name, p)
		if isRequired && !slices.Contains(*required, name) {
			*required = append(*required, name)
		}
	}
}

// keyword applies one jsonschema tag keyword to a property schema.
func (b *schemaBuilder) keyword(p *object, kw, where string) {
	key, val, ok := strings.Cut(kw, "=")
	if !ok {
		b.problem("%s: jsonschema tag keyword %q is not supported", where, kw)
		return
	}
	typ, _ := p.get("type")
	numeric := typ == "integer" || typ == "number"
	num := func() any {
		if n, ok := jsonNumber(val); ok {
			return n
		}
		b.problem("%s: jsonschema %s=%q is not a number", where, key, val)
		return nil
	}
	typed := func() any {
		if numeric {
			if n, ok := jsonNumber(val); ok {
				return n
			}
		}
		if typ == "boolean" {
			if v, err := strconv.ParseBool(val); err == nil {
				return v
			}
		}
		return val
	}
	appendTo := func(k string, v any) {
		old, _ := p.get(k)
		list, _ := old.([]any)
		p.set(k, append(list, v))
	}
	switch key {
	case "title", "description", "format", "pattern":
		p.set(key, val)
	case "minLength", "maxLength", "minItems", "maxItems":
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			b.problem("%s: jsonschema %s=%q is not a count", where, key, val)
			return
		}
		p.set(key, n)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if n := num(); n != nil {
			p.set(key, n)
		}
	case "uniqueItems":
		v, _ := strconv.ParseBool(val)
		p.set(key, v)
	case "default":
		p.set(key, typed())
	case "enum":
		appendTo("enum", typed())
	case "example":
		appendTo("examples", typed())
	default:
		b.problem("%s: jsonschema tag keyword %q is not supported", where, key)
	}
}

func jsonNumber(s string) (json.Number, bool) {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(s), true
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return json.Number(s), true
	}
	return "", false
}

// splitUnescaped splits a tag on commas not preceded by a backslash, as
// invopop does, so a description may contain "\,".
func splitUnescaped(s string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == ',' {
			cur.WriteByte(',')
			i++
			continue
		}
		if s[i] == ',' {
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteByte(s[i])
	}
	return append(out, cur.String())
}

func hasOption(tags []string, opt string) bool {
	for _, t := range tags[1:] {
		if t == opt {
			return true
		}
	}
	return false
}
