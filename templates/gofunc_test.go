package templates

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkschema "github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/hcl/v2"
	"github.com/invopop/jsonschema"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/templates/testdata/gotools"
)

const gotoolsPkg = "github.com/toolgen-dev/toolgen/templates/testdata/gotools"

// goSpec is a spec with one Go tool per function name.
func goSpec(funcs ...string) *ir.Spec {
	// Generated elsewhere: code generated into gotools would import itself.
	spec := &ir.Spec{Dir: "testdata/gotools", OutDir: "testdata/gen", Package: "p"}
	for i, fn := range funcs {
		name := strings.ToLower(fn)
		rng := hcl.Range{Filename: "tools.hcl", Start: hcl.Pos{Line: i + 1, Column: 8, Byte: 0}, End: hcl.Pos{Line: i + 1, Column: 20}}
		spec.Tools = append(spec.Tools, &ir.Tool{
			Name: name, GoName: ir.GoName(name), Kind: ir.KindGo,
			Go:    &ir.GoFunc{ImportPath: gotoolsPkg, Func: fn, Range: rng},
			Range: rng,
		})
		spec.Catalog = append(spec.Catalog, &ir.CatalogTool{Name: name, Kind: ir.KindGo})
	}
	return spec
}

func TestLoadGoToolsRejects(t *testing.T) {
	cases := []struct {
		fn, summary, detail string
	}{
		{"Missing", "Unknown Go function", `has no exported function "Missing"`},
		{"Goood", "Unknown Go function", `Did you mean "` + gotoolsPkg + `.Good"?`},
		{"NotAFunc", "Not a Go function", "is a variable"},
		{"NoContext", "Wrong Go function signature", "first parameter must be context.Context"},
		{"NotStruct", "Wrong Go function signature", "Args must be a named"},
		{"OneResult", "Wrong Go function signature", "exactly two results"},
		{"NoError", "Wrong Go function signature", "second result must be error"},
		{"ChanResult", "Wrong Go function signature", "cannot be encoded as JSON"},
		{"Unexported", "Wrong Go function signature", "must be exported"},
		{"Generic", "Wrong Go function signature", "it is generic"},
		{"Recurse", "Unsupported Go argument type", "recursive type Recursive"},
		{"WithBadTag", "Unsupported Go argument type", `keyword "oneof_type" is not supported`},
	}
	fns := make([]string, len(cases))
	for i, c := range cases {
		fns[i] = c.fn
	}
	spec := goSpec(fns...)
	goTools, diags := LoadGoTools(spec)
	if len(diags) != len(cases) {
		t.Fatalf("got %d diagnostics, want %d:\n%v", len(diags), len(cases), diags)
	}
	for i, c := range cases {
		d := diags[i]
		if d.Summary != c.summary || !strings.Contains(d.Detail, c.detail) {
			t.Errorf("%s: got %q: %q; want %q containing %q", c.fn, d.Summary, d.Detail, c.summary, c.detail)
		}
		if d.Subject == nil || *d.Subject != spec.Tools[i].Go.Range {
			t.Errorf("%s: subject %v, want the go attribute's range %v", c.fn, d.Subject, spec.Tools[i].Go.Range)
		}
		if g := goTools.Tool(spec.Tools[i].Name); g != nil {
			t.Errorf("%s: rejected, yet loaded as %+v", c.fn, g)
		}
	}
}

func TestLoadGoToolsMissingPackage(t *testing.T) {
	spec := goSpec("Good")
	spec.Tools[0].Go.ImportPath = "github.com/toolgen-dev/toolgen/templates/testdata/nosuchpkg"
	_, diags := LoadGoTools(spec)
	if len(diags) != 1 || diags[0].Summary != "Cannot load Go package" || diags[0].Subject == nil {
		t.Fatalf("got %v", diags)
	}
}

// TestGoToolSchemaMatchesInvopop checks the go/types schema builder against
// invopop/jsonschema reflecting the same type: the conventions are the
// library's, descriptions from doc comments are ours on top.
func TestGoToolSchemaMatchesInvopop(t *testing.T) {
	spec := goSpec("Good")
	goTools, diags := LoadGoTools(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tool := goTools.Tool("good")
	if tool.ArgsType != gotoolsPkg+".Args" || tool.ResultType != "map[string]any" {
		t.Errorf("types = %q, %q", tool.ArgsType, tool.ResultType)
	}
	r := &jsonschema.Reflector{ExpandedStruct: true, DoNotReference: true}
	want, err := json.Marshal(r.Reflect(&gotools.Args{}))
	if err != nil {
		t.Fatal(err)
	}
	got, wantV := normalize(t, tool.InputSchema, true), normalize(t, want, true)
	delete(wantV, "$schema")
	delete(wantV, "$id")
	if diff := cmp.Diff(wantV, got); diff != "" {
		t.Errorf("schema differs from invopop's (-want +got):\n%s\ngot %s", diff, tool.InputSchema)
	}

	// Doc comments and description tags become descriptions.
	full := normalize(t, tool.InputSchema, false)
	props := full["properties"].(map[string]any)
	for name, want := range map[string]string{
		"query": "Query is what to look for.",
		"desc":  "From the description tag",
		"comma": "one, two",
	} {
		if got := props[name].(map[string]any)["description"]; got != want {
			t.Errorf("%s description = %q, want %q", name, got, want)
		}
	}
	if got := props["inner"].(map[string]any)["properties"].(map[string]any)["label"].(map[string]any)["description"]; got != "Label names the inner thing." {
		t.Errorf("nested description = %q", got)
	}
	if p := tool.Params; len(p) != 19 || p[0] != "NoTag" || p[1] != "anything" {
		t.Errorf("params = %v", p)
	}
}

// TestLoadGoToolsLeavesIR: type-checking is a phase of its own; what it
// finds is its result, and the resolved IR it reads stays as it was.
func TestLoadGoToolsLeavesIR(t *testing.T) {
	spec := goSpec("Good")
	before, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	goTools, diags := LoadGoTools(spec)
	if diags.HasErrors() || goTools.Tool("good") == nil {
		t.Fatalf("%v", diags)
	}
	after, _ := json.Marshal(spec)
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("LoadGoTools changed the IR (-before +after):\n%s", diff)
	}

	// The spec's own input_schema wins over the derived one, and gives
	// the parameters.
	spec = goSpec("Good")
	spec.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"only":{"type":"string"}}}`)
	goTools, diags = LoadGoTools(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if g := goTools.Tool("good"); string(g.InputSchema) != string(spec.Tools[0].InputSchema) || len(g.Params) != 1 || g.Params[0] != "only" {
		t.Errorf("with input_schema: schema %s, params %v", g.InputSchema, g.Params)
	}
}

// normalize decodes a schema; true (invopop's empty schema) becomes {}, and
// with strip descriptions are dropped.
func normalize(t *testing.T, raw []byte, strip bool) map[string]any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case bool:
			if x {
				return map[string]any{}
			}
		case map[string]any:
			if strip {
				delete(x, "description")
			}
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	return walk(v).(map[string]any)
}

// TestGoToolSDKTags: go-sdk's convention (a jsonschema tag that is not
// WORD=… is the description, whole) is accepted beside invopop's, and
// gives what go-sdk's own schema package (google/jsonschema-go) gives.
func TestGoToolSDKTags(t *testing.T) {
	spec := goSpec("SDKTagged")
	goTools, diags := LoadGoTools(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	props := normalize(t, goTools.Tool("sdktagged").InputSchema, false)["properties"].(map[string]any)
	sdk, err := sdkschema.For[gotools.SDKArgs](nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"path", "limit"} {
		got := props[name].(map[string]any)["description"]
		if want := sdk.Properties[name].Description; got != want || want == "" {
			t.Errorf("%s description = %q, go-sdk says %q", name, got, want)
		}
	}
}
