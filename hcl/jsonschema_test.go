package hcl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

// TestJSONSchemaMirrors keeps the JSON mirror types in step with the
// decoders: same attribute and block names, same required attributes.
func TestJSONSchemaMirrors(t *testing.T) {
	for _, tc := range []struct {
		typ    any
		schema *hcl.BodySchema
	}{
		{SpecFile{}, rootSchema}, {ToolgenJSON{}, toolgenSchema}, {DefaultsJSON{}, defaultsSchema},
		{QueueJSON{}, queueSchema}, {ServerJSON{}, serverSchema}, {HealthCheckJSON{}, healthCheckSchema},
		{PolicyJSON{}, policySchema}, {ToolJSON{}, toolSchema}, {RESTJSON{}, restSchema},
		{BundleJSON{}, bundleSchema}, {AgentJSON{}, agentSchema}, {AgentToolsJSON{}, agentToolsSchema},
		{RouterJSON{}, routerSchema}, {WorkflowJSON{}, workflowSchema}, {RoleJSON{}, roleSchema},
		{StepJSON{}, stepSchema}, {ModelJSON{}, modelSchema},
	} {
		rt := reflect.TypeOf(tc.typ)
		var got, gotReq, want, wantReq []string
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if name == "//" {
				continue
			}
			got = append(got, name)
			if slices.Contains(strings.Split(f.Tag.Get("jsonschema"), ","), "required") {
				gotReq = append(gotReq, name)
			}
		}
		for _, a := range tc.schema.Attributes {
			want = append(want, a.Name)
			if a.Required {
				wantReq = append(wantReq, a.Name)
			}
		}
		for _, b := range tc.schema.Blocks {
			want = append(want, b.Type)
		}
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s fields (-decoder +mirror):\n%s", rt.Name(), diff)
		}
		if diff := cmp.Diff(wantReq, gotReq); diff != "" {
			t.Errorf("%s required (-decoder +mirror):\n%s", rt.Name(), diff)
		}
	}
}

// TestJSONSchemaAcceptsFixtures validates every *.hcl.json fixture against
// the schema, and checks that typical mistakes are rejected.
func TestJSONSchemaAcceptsFixtures(t *testing.T) {
	b, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob("../testdata/specs/valid/*/*.hcl.json")
	if len(paths) == 0 {
		t.Fatal("no JSON fixtures")
	}
	for _, p := range paths {
		src, _ := os.ReadFile(p)
		var doc any
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatal(err)
		}
		if err := validate(schema, schema, doc, "$"); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, bad := range []string{
		`{"server": {"s": {"transprt": "stdio"}}}`,
		`{"server": {"s": {"transport": "pipe"}}}`,
		`{"policy": {"p": {"allowed_paths": ["."]}}}`,
		`{"queue": {"q": {"concurrent": "many"}}}`,
		`{"agent": {"a": {"tools": {"use": "tool.x"}}}}`,
		`{"tols": {}}`,
	} {
		var doc any
		json.Unmarshal([]byte(bad), &doc)
		if validate(schema, schema, doc, "$") == nil {
			t.Errorf("schema accepts %s", bad)
		}
	}
}

// validate checks the subset of JSON Schema the reflector emits: $ref,
// type, properties, additionalProperties, items, required, enum, oneOf.
func validate(root, s map[string]any, v any, at string) error {
	if ref, ok := s["$ref"].(string); ok {
		def := root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")]
		return validate(root, def.(map[string]any), v, at)
	}
	if one, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, alt := range one {
			if validate(root, alt.(map[string]any), v, at) == nil {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: matches %d of oneOf", at, n)
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		return fmt.Errorf("%s: %v not in %v", at, v, enum)
	}
	switch s["type"] {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: not an object", at)
		}
		props, _ := s["properties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if _, ok := obj[r.(string)]; !ok {
				return fmt.Errorf("%s: missing %s", at, r)
			}
		}
		for k, e := range obj {
			if p, ok := props[k]; ok {
				if err := validate(root, p.(map[string]any), e, at+"."+k); err != nil {
					return err
				}
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Errorf("%s: unknown property %q", at, k)
				}
			case map[string]any:
				if err := validate(root, ap, e, at+"."+k); err != nil {
					return err
				}
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: not an array", at)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range arr {
				if err := validate(root, items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: not a string", at)
		}
	case "integer", "number":
		if _, ok := v.(float64); !ok {
			return fmt.Errorf("%s: not a number", at)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: not a boolean", at)
		}
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestFormatIdempotent formats every fixture file that parses twice: the
// second pass must change nothing, and formatting must not change the IR
// (checked per directory in internal/cmd's TestFmtWrite).
func TestFormatIdempotent(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/specs/*/*/*.hcl*")
	for _, p := range paths {
		src, _ := os.ReadFile(p)
		once, diags := Format(p, src)
		if diags.HasErrors() {
			continue // invalid syntax fixtures
		}
		twice, _ := Format(p, once)
		if diff := cmp.Diff(string(once), string(twice)); diff != "" {
			t.Errorf("%s: fmt is not idempotent (-once +twice):\n%s", p, diff)
		}
	}
}

// TestValidFixturesCoverLanguage checks that every attribute and block of
// the language appears in some valid fixture, so the fixtures stay a
// complete example as the language grows.
func TestValidFixturesCoverLanguage(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/specs/valid/*/*.hcl*")
	var all strings.Builder
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		all.Write(b)
	}
	text := all.String()
	for _, s := range []*hcl.BodySchema{
		rootSchema, toolgenSchema, defaultsSchema, queueSchema, serverSchema, healthCheckSchema,
		policySchema, toolSchema, restSchema, bundleSchema, agentSchema, agentToolsSchema,
		routerSchema, workflowSchema, roleSchema, stepSchema,
	} {
		var names []string
		for _, a := range s.Attributes {
			names = append(names, a.Name)
		}
		for _, b := range s.Blocks {
			names = append(names, b.Type)
		}
		for _, n := range names {
			re := regexp.MustCompile(`(^|\s)` + n + `\s*(=|\{|")|"` + n + `"\s*:`)
			if !re.MatchString(text) {
				t.Errorf("no valid fixture uses %q", n)
			}
		}
	}
}
