package hcl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/search"
	"github.com/yosida95/uritemplate/v3"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// toolBlock is a declared tool: a builtin under a policy, a REST call or a
// Go function.
type toolBlock struct {
	Name             string
	NameRange        hcl.Range
	Description      string
	Policy           *ref
	REST             *ir.REST
	Go               *ir.GoFunc
	InputSchema      json.RawMessage
	InputSchemaRange hcl.Range
	Category         string
	Keywords         []string
	RenamedFrom      []str
	Queue            *ref
	Timeout          time.Duration
	DeclRange        hcl.Range
	toolMeta         // title, annotations, output_schema (tool_meta.go)
}

var (
	toolSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "description"}, {Name: "policy"}, {Name: "category"}, {Name: "keywords"},
			{Name: "renamed_from"}, {Name: "go"}, {Name: "input_schema"}, {Name: "queue"}, {Name: "timeout"},
			{Name: "title"}, {Name: "output_schema"}, {Name: "always_load"}, {Name: "task"},
		},
		Blocks: []hcl.BlockHeaderSchema{{Type: "rest"}, {Type: "annotations"}},
	}
	restSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "method"}, {Name: "url", Required: true}, {Name: "headers"}},
	}
	httpMethods = []string{"DELETE", "GET", "HEAD", "PATCH", "POST", "PUT"}
)

func decodeTool(block *hcl.Block, ctx *hcl.EvalContext) (*toolBlock, hcl.Diagnostics) {
	t := &toolBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange}
	diags := checkName("tool", t.Name, t.NameRange)
	content, d := block.Body.Content(toolSchema)
	diags = append(diags, d...)
	unknownArgs := d.HasErrors() // e.g. "polcy": not also "without implementation"
	attrs := content.Attributes
	in := attrReader{attrs, ctx, &diags}
	errAt := func(rng hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: block.DefRange.Ptr()})
	}
	str1 := func(name string, dst *string) {
		if a := attrs[name]; a != nil {
			v, d := evalString(a.Expr, ctx)
			diags = append(diags, d...)
			*dst = strings.TrimSpace(v)
		}
	}
	str1("description", &t.Description)
	str1("category", &t.Category)
	if a := attrs["keywords"]; a != nil {
		v, d := evalStrings(a.Expr, ctx)
		diags = append(diags, d...)
		t.Keywords = strVals(v)
	}
	if a := attrs["renamed_from"]; a != nil {
		v, d := evalStrings(a.Expr, ctx)
		diags = append(diags, d...)
		t.RenamedFrom = v
		for _, s := range v {
			diags = append(diags, checkName("renamed_from", s.Val, s.Range)...)
		}
	}
	if a := attrs["policy"]; a != nil {
		r, d := decodeRef(a.Expr, "policy")
		diags = append(diags, d...)
		if !d.HasErrors() {
			t.Policy = &r
		}
	}
	if a := attrs["queue"]; a != nil {
		r, d := decodeRef(a.Expr, "queue")
		diags = append(diags, d...)
		if !d.HasErrors() {
			t.Queue = &r
		}
	}
	readAttr(in, "timeout", evalDuration, &t.Timeout)
	if a := attrs["go"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			fn, ok := parseGoFunc(v)
			if !ok {
				errAt(a.Expr.Range(), "Invalid Go function", fmt.Sprintf("%q does not name an exported Go function; write \"import/path.Func\", for example \"example.com/agent/tools.Summarize\".", v))
			} else {
				fn.Range = a.Expr.Range()
				t.Go = fn
			}
		}
	}
	if a := attrs["input_schema"]; a != nil {
		v, d := decodeInputSchema(a.Expr, ctx)
		diags = append(diags, d...)
		t.InputSchema, t.InputSchemaRange = v, a.Expr.Range()
	}
	diags = append(diags, t.toolMeta.decode(content, block, ctx)...)
	var restBlocks []*hcl.Block
	for _, b := range content.Blocks {
		if b.Type != "rest" {
			continue
		}
		if len(restBlocks) > 0 {
			errAt(b.DefRange, "Duplicate rest block", fmt.Sprintf("Tool %q already has a rest block at %s.", t.Name, shortPos(restBlocks[0].DefRange)))
			continue
		}
		restBlocks = append(restBlocks, b)
		r, d := decodeREST(b, ctx)
		diags = append(diags, d...)
		t.REST = r
	}
	if t.Task == "after_input" && attrs["go"] == nil {
		errAt(t.TaskRange, "Invalid task support", fmt.Sprintf("task of tool %q is \"after_input\", which only a Go tool (go = …) can use: it becomes a task when its code calls runtime.ContinueAsTask.", t.Name))
	}

	// A tool has exactly one implementation.
	var kinds []string
	var kindRanges []hcl.Range
	if a := attrs["policy"]; a != nil {
		kinds, kindRanges = append(kinds, "policy"), append(kindRanges, a.NameRange)
	}
	if len(restBlocks) > 0 {
		kinds, kindRanges = append(kinds, "rest"), append(kindRanges, restBlocks[0].DefRange)
	}
	if a := attrs["go"]; a != nil {
		kinds, kindRanges = append(kinds, "go"), append(kindRanges, a.NameRange)
	}
	switch len(kinds) {
	case 0:
		if unknownArgs {
			break // a misspelt policy/go is reported as such, once
		}
		errAt(t.NameRange, "Tool without implementation", fmt.Sprintf("Tool %q needs exactly one of: policy = policy.NAME (a builtin), a rest block, or go = \"import/path.Func\". Tools provided by MCP servers are not declared; use the server in a bundle or agent.", t.Name))
	case 1:
	default:
		errAt(kindRanges[1], "Tool with several implementations", fmt.Sprintf("Tool %q sets both %s and %s; a tool has exactly one implementation.", t.Name, kinds[0], kinds[1]))
	}
	if t.REST != nil && !diags.HasErrors() {
		diags = append(diags, checkURLParams(t, block.DefRange)...)
	}
	if t.Go != nil && t.InputSchema != nil {
		errAt(t.InputSchemaRange, "Input schema of a Go tool", fmt.Sprintf("The input schema of Go tool %q comes from its argument type; remove input_schema.", t.Name))
	}
	if t.Go != nil && t.OutputSchema != nil {
		errAt(t.OutputSchemaRange, "Output schema of a Go tool", fmt.Sprintf("The output schema of Go tool %q comes from its result type; remove output_schema.", t.Name))
	}
	return t, diags
}

func decodeREST(block *hcl.Block, ctx *hcl.EvalContext) (*ir.REST, hcl.Diagnostics) {
	r := &ir.REST{Method: "GET", Range: block.DefRange}
	content, diags := block.Body.Content(restSchema)
	if a := content.Attributes["method"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			v = strings.ToUpper(v)
			if !slices.Contains(httpMethods, v) {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid HTTP method", Detail: fmt.Sprintf("%q is not an HTTP method; use one of %s.%s", v, quoteList(httpMethods), didYouMean(v, httpMethods)), Subject: a.Expr.Range().Ptr()})
			}
			r.Method = v
		}
	}
	if a := content.Attributes["url"]; a != nil {
		v, d := decodeValue(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			r.URL = v
			diags = append(diags, checkURITemplate(v, a.Expr.Range())...)
		}
	}
	if a := content.Attributes["headers"]; a != nil {
		v, d := decodeValueMap(a.Expr, ctx)
		diags = append(diags, d...)
		r.Headers = irKeyValues(v)
		diags = append(diags, checkSecrets(v, "headers", block.DefRange)...)
		if u := content.Attributes["url"]; u != nil {
			diags = append(diags, checkRESTSecrets(r, v, u.Expr.Range(), block.DefRange)...)
		}
	}
	return r, diags
}

// checkURITemplate parses the URL as an RFC 6570 template; env() parts are
// stood in for by a plain word.
func checkURITemplate(v ir.Value, rng hcl.Range) hcl.Diagnostics {
	var b strings.Builder
	for _, p := range v.Parts {
		if p.Env != "" {
			b.WriteString("env")
		}
		b.WriteString(p.Lit)
	}
	s := b.String()
	if _, err := uritemplate.New(s); err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid URL template", Detail: fmt.Sprintf("%q is not an RFC 6570 URL template: %s. Arguments are written {name}.", s, err), Subject: rng.Ptr()}}
	}
	// The runtime needs a literal scheme: an argument such as "{city}" could
	// put anything there, so only an env() part may stand in for the scheme.
	if v.Parts[0].Env == "" && !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid URL", Detail: fmt.Sprintf("%q is not an absolute http or https URL. Start it with http:// or https://, or with env(\"NAME\") holding the scheme and host; an argument cannot supply them.", s), Subject: rng.Ptr()}}
	}
	return nil
}

// checkURLParams requires every variable of a REST tool's URL template to
// be a property of its input schema: the arguments fill the template.
func checkURLParams(t *toolBlock, ctxRange hcl.Range) hcl.Diagnostics {
	var b strings.Builder
	for _, p := range t.REST.URL.Parts {
		b.WriteString(p.Lit)
	}
	tmpl, err := uritemplate.New(b.String())
	if err != nil || len(tmpl.Varnames()) == 0 {
		return nil
	}
	vars := tmpl.Varnames()
	params := search.SchemaParams(t.InputSchema)
	var diags hcl.Diagnostics
	for _, v := range vars {
		if slices.Contains(params, v) {
			continue
		}
		if t.InputSchema == nil {
			return hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Missing input_schema",
				Detail:   fmt.Sprintf("The URL of tool %q uses %s, so the tool needs an input_schema whose properties declare them.", t.Name, quoteList(vars)),
				Subject:  t.NameRange.Ptr(),
				Context:  ctxRange.Ptr(),
			}}
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unknown URL parameter",
			Detail:   fmt.Sprintf("The URL uses {%s}, but the input schema of tool %q has no property %q.%s", v, t.Name, v, didYouMean(v, params)),
			Subject:  t.InputSchemaRange.Ptr(),
			Context:  ctxRange.Ptr(),
		})
	}
	return diags
}

// parseGoFunc splits "import/path.Func".
func parseGoFunc(s string) (*ir.GoFunc, bool) {
	slash := strings.LastIndex(s, "/")
	dot := strings.LastIndex(s, ".")
	if dot <= slash || dot == len(s)-1 || dot == 0 {
		return nil, false
	}
	pkg, fn := s[:dot], s[dot+1:]
	if !token.IsIdentifier(fn) || !unicode.IsUpper([]rune(fn)[0]) || strings.ContainsAny(pkg, " \t\"\\") || strings.HasSuffix(pkg, "/") {
		return nil, false
	}
	return &ir.GoFunc{ImportPath: pkg, Func: fn}, true
}

// decodeInputSchema reads input_schema, written either as an HCL object or
// as a JSON string (typically file("schema.json")), into compact JSON.
func decodeInputSchema(expr hcl.Expression, ctx *hcl.EvalContext) (json.RawMessage, hcl.Diagnostics) {
	return decodeSchema(expr, ctx, "input", func(obj map[string]any) string {
		if t, ok := obj["type"]; !ok || t != "object" {
			return fmt.Sprintf("A tool's input schema must have type \"object\" (MCP requires it), not %s.", jsonText(obj["type"]))
		}
		if p, ok := obj["properties"]; ok {
			if _, isObj := p.(map[string]any); !isObj {
				return "The schema's properties must be an object."
			}
		}
		return ""
	})
}

// decodeSchema reads a JSON Schema attribute (KIND_schema), an HCL object
// or a JSON string (file("schema.json")), into compact JSON; check returns
// the detail of what else is wrong with the object, or "".
func decodeSchema(expr hcl.Expression, ctx *hcl.EvalContext, kind string, check func(map[string]any) string) (json.RawMessage, hcl.Diagnostics) {
	v, diags := evalValue(expr, ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	bad := func(detail string) (json.RawMessage, hcl.Diagnostics) {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + kind + " schema", Detail: detail, Subject: expr.Range().Ptr()})
	}
	var raw []byte
	if v.Type() == cty.String && !v.IsNull() {
		raw = []byte(v.AsString())
	} else {
		b, err := ctyjson.SimpleJSONValue{Value: v}.MarshalJSON()
		if err != nil {
			return bad(fmt.Sprintf("The schema cannot be written as JSON: %s.", err))
		}
		raw = b
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return bad(kind + "_schema must be a JSON Schema object, written as an HCL object or read with file(\"schema.json\").")
	}
	if check != nil {
		if detail := check(obj); detail != "" {
			return bad(detail)
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return bad(err.Error())
	}
	return json.RawMessage(buf.Bytes()), diags
}

func jsonText(v any) string {
	if v == nil {
		return "missing"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
