package hcl

import (
	"fmt"
	"math/big"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// This file turns attribute expressions into Go values. References and env()
// calls are read from the syntax tree, never evaluated; everything else is
// evaluated with only file() available.

// str is a string with the range it came from.
type str struct {
	Val   string
	Range hcl.Range
}

func strVals(list []str) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Val
	}
	return out
}

// ref is a reference such as tool.read_file.
type ref struct {
	Kind    string // tool, server, bundle, agent, policy, queue, model
	Name    string
	Range   hcl.Range // the whole traversal
	Accepts []string  // the kinds the attribute accepts, for suggestions
}

func (r ref) String() string { return r.Kind + "." + r.Name }

// refKinds are the roots a reference may start with.
// runtime names one of the runtime's opt-in tools (tools.use only).
var refKinds = []string{"agent", "bundle", "model", "policy", "prompt", "queue", "resource", "runtime", "server", "skill", "tool"}

// quotedRefRe is a string written like a reference: "tool.read_file". No
// name has a dot, so as a name or glob it would match nothing.
var quotedRefRe = regexp.MustCompile(`^(agent|bundle|model|policy|prompt|queue|resource|runtime|server|tool)\.[A-Za-z0-9_-]+$`)

func evalValue(expr hcl.Expression, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	if !v.IsWhollyKnown() {
		return cty.NilVal, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid value",
			Detail:   "The value must be known when the spec is loaded.",
			Subject:  expr.Range().Ptr(),
		})
	}
	return v, diags
}

func evalString(expr hcl.Expression, ctx *hcl.EvalContext) (string, hcl.Diagnostics) {
	v, diags := evalValue(expr, ctx)
	if diags.HasErrors() {
		return "", diags
	}
	v, err := convert.Convert(v, cty.String)
	if err != nil || v.IsNull() {
		return "", append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid value",
			Detail:   "A string is required here.",
			Subject:  expr.Range().Ptr(),
		})
	}
	return v.AsString(), diags
}

func evalBool(expr hcl.Expression, ctx *hcl.EvalContext) (bool, hcl.Diagnostics) {
	v, diags := evalValue(expr, ctx)
	if diags.HasErrors() {
		return false, diags
	}
	v, err := convert.Convert(v, cty.Bool)
	if err != nil || v.IsNull() {
		return false, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid value",
			Detail:   "A boolean (true or false) is required here.",
			Subject:  expr.Range().Ptr(),
		})
	}
	return v.True(), diags
}

// evalInt reads a whole number in [min, max].
func evalInt(expr hcl.Expression, ctx *hcl.EvalContext, min, max int64) (int, hcl.Diagnostics) {
	v, diags := evalValue(expr, ctx)
	if diags.HasErrors() {
		return 0, diags
	}
	bad := func(detail string) (int, hcl.Diagnostics) {
		return 0, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid number",
			Detail:   detail,
			Subject:  expr.Range().Ptr(),
		})
	}
	v, err := convert.Convert(v, cty.Number)
	if err != nil || v.IsNull() {
		return bad("A whole number is required here.")
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		return bad(fmt.Sprintf("A whole number is required here, not %s.", bf.Text('g', -1)))
	}
	if bf.Cmp(new(big.Float).SetInt64(min)) < 0 || bf.Cmp(new(big.Float).SetInt64(max)) > 0 {
		return bad(fmt.Sprintf("The value must be between %d and %d, not %s.", min, max, bf.Text('g', -1)))
	}
	n, _ := bf.Int64()
	return int(n), diags
}

func evalDuration(expr hcl.Expression, ctx *hcl.EvalContext) (time.Duration, hcl.Diagnostics) {
	s, diags := evalString(expr, ctx)
	if diags.HasErrors() {
		return 0, diags
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid duration",
			Detail:   fmt.Sprintf("%q is not a duration; write a Go duration such as \"30s\", \"1m30s\" or \"5m\".", s),
			Subject:  expr.Range().Ptr(),
		})
	}
	return d, diags
}

// evalEnum reads a string that must be one of choices (sorted).
func evalEnum(expr hcl.Expression, ctx *hcl.EvalContext, what string, choices []string) (string, hcl.Diagnostics) {
	s, diags := evalString(expr, ctx)
	if diags.HasErrors() {
		return "", diags
	}
	for _, c := range choices {
		if s == c {
			return s, diags
		}
	}
	return "", append(diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid " + what,
		Detail:   fmt.Sprintf("%q is not a valid %s; use one of %s.%s", s, what, quoteList(choices), didYouMean(s, choices)),
		Subject:  expr.Range().Ptr(),
	})
}

// evalStrings reads a list of strings, keeping each element's range.
func evalStrings(expr hcl.Expression, ctx *hcl.EvalContext) ([]str, hcl.Diagnostics) {
	elems, diags := hcl.ExprList(expr)
	if diags.HasErrors() {
		// Not a list literal: maybe a call such as file(); evaluate it whole.
		v, vdiags := evalValue(expr, ctx)
		if vdiags.HasErrors() {
			return nil, diags
		}
		if !v.IsNull() && v.IsKnown() && v.Type() == cty.String {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Incorrect attribute value type",
				Detail:  fmt.Sprintf("A list of strings is required here, not one string. Put it in brackets: [%q].", v.AsString()),
				Subject: expr.Range().Ptr()}}
		}
		lv, err := convert.Convert(v, cty.List(cty.String))
		if err != nil || lv.IsNull() {
			return nil, diags
		}
		out := []str{}
		for it := lv.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			if ev.IsNull() {
				return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value", Detail: "List elements must not be null.", Subject: expr.Range().Ptr()}}
			}
			out = append(out, str{ev.AsString(), expr.Range()})
		}
		return out, nil
	}
	out := make([]str, 0, len(elems))
	for _, e := range elems {
		s, d := evalString(e, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			out = append(out, str{s, e.Range()})
		}
	}
	return out, diags
}

// decodeRef reads a reference whose root is one of kinds.
func decodeRef(expr hcl.Expression, kinds ...string) (ref, hcl.Diagnostics) {
	trav, diags := hcl.AbsTraversalForExpr(expr)
	if diags.HasErrors() {
		return ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference",
			Detail:   fmt.Sprintf("A reference such as %s.NAME is required here.", kinds[0]) + kindHint(kinds),
			Subject:  expr.Range().Ptr(),
		}}
	}
	return refFromTraversal(trav, expr.Range(), kinds)
}

func kindHint(kinds []string) string {
	if len(kinds) < 2 {
		return ""
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k + ".NAME"
	}
	return " Accepted here: " + strings.Join(parts, ", ") + "."
}

func refFromTraversal(trav hcl.Traversal, rng hcl.Range, kinds []string) (ref, hcl.Diagnostics) {
	root := trav.RootName()
	ok := false
	for _, k := range kinds {
		ok = ok || k == root
	}
	if !ok {
		detail := fmt.Sprintf("%q cannot be referenced here; a reference such as %s.NAME is required.", root, kinds[0]) + kindHint(kinds)
		if s := didYouMean(root, kinds); s != "" {
			detail += s
		}
		return ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference",
			Detail:   detail,
			Subject:  trav[0].SourceRange().Ptr(),
		}}
	}
	if len(trav) != 2 {
		return ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference",
			Detail:   fmt.Sprintf("A %s reference has exactly two parts, %s.NAME.", root, root),
			Subject:  rng.Ptr(),
		}}
	}
	attr, isAttr := trav[1].(hcl.TraverseAttr)
	if !isAttr {
		return ref{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid reference",
			Detail:   fmt.Sprintf("A %s reference is written %s.NAME.", root, root),
			Subject:  trav[1].SourceRange().Ptr(),
		}}
	}
	return ref{Kind: root, Name: attr.Name, Range: trav.SourceRange(), Accepts: kinds}, nil
}

// decodeRefs reads a list of references whose roots are one of kinds.
func decodeRefs(expr hcl.Expression, kinds ...string) ([]ref, hcl.Diagnostics) {
	elems, diags := hcl.ExprList(expr)
	if diags.HasErrors() {
		return nil, diags
	}
	out := make([]ref, 0, len(elems))
	for _, e := range elems {
		r, d := decodeRef(e, kinds...)
		diags = append(diags, d...)
		if !d.HasErrors() {
			out = append(out, r)
		}
	}
	return out, diags
}

// refOrString is one element of a list that mixes references and strings
// (tools.use, tools.allowed, alias targets).
type refOrString struct {
	Ref   *ref
	Str   str
	Range hcl.Range
}

// decodeRefOrString reads a reference (when the expression is one, with a
// root among kinds) or else a string.
func decodeRefOrString(expr hcl.Expression, ctx *hcl.EvalContext, kinds ...string) (refOrString, hcl.Diagnostics) {
	if isTraversal(expr) {
		trav, diags := hcl.AbsTraversalForExpr(expr)
		if !diags.HasErrors() {
			isKind := false
			for _, k := range refKinds {
				isKind = isKind || k == trav.RootName()
			}
			_, native := expr.(hclsyntax.Expression)
			// In JSON a plain name parses as a traversal too; only roots that
			// are reference kinds make it a reference there.
			if native || isKind {
				r, d := refFromTraversal(trav, expr.Range(), kinds)
				if d.HasErrors() && native && !isKind && len(trav) == 1 {
					d[0].Detail = fmt.Sprintf("%q is neither a reference nor a quoted string; write %q for a name or glob, or %s.NAME for a reference.", trav.RootName(), trav.RootName(), kinds[0])
				}
				return refOrString{Ref: &r, Range: expr.Range()}, d
			}
		}
	}
	s, diags := evalString(expr, ctx)
	if _, native := expr.(hclsyntax.Expression); native && !diags.HasErrors() && quotedRefRe.MatchString(s) {
		// In JSON syntax such a string is the reference; in native syntax
		// it would silently match nothing.
		return refOrString{}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Quoted reference",
			Detail:   fmt.Sprintf("%q is a string, so it would be taken as a tool name or glob and match nothing. To refer to %s, remove the quotes: %s", s, s, s),
			Subject:  expr.Range().Ptr(),
		}}
	}
	return refOrString{Str: str{s, expr.Range()}, Range: expr.Range()}, diags
}

// isTraversal reports whether expr is written as a traversal (native
// syntax) or is a JSON string that could be one.
func isTraversal(expr hcl.Expression) bool {
	switch expr.(type) {
	case *hclsyntax.ScopeTraversalExpr, *hclsyntax.RelativeTraversalExpr:
		return true
	case hclsyntax.Expression:
		return false
	}
	return true
}

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// decodeValue reads a string that may contain env("NAME") calls, either
// alone (env("X")) or in a template ("Bearer ${env("X")}"). The calls are
// kept as run-time lookups; everything else is evaluated now.
func decodeValue(expr hcl.Expression, ctx *hcl.EvalContext) (ir.Value, hcl.Diagnostics) {
	var v ir.Value
	diags := appendValue(&v, expr, ctx)
	return mergeLits(v), diags
}

func appendValue(v *ir.Value, expr hcl.Expression, ctx *hcl.EvalContext) hcl.Diagnostics {
	switch e := expr.(type) {
	case *hclsyntax.TemplateExpr:
		var diags hcl.Diagnostics
		for _, p := range e.Parts {
			diags = append(diags, appendValue(v, p, ctx)...)
		}
		return diags
	case *hclsyntax.TemplateWrapExpr:
		return appendValue(v, e.Wrapped, ctx)
	case *hclsyntax.FunctionCallExpr:
		if e.Name == "env" {
			p, diags := envArg(e.Args, e.Range())
			if !diags.HasErrors() {
				v.Parts = append(v.Parts, p)
			}
			return diags
		}
	case hclsyntax.Expression:
		// evaluated below
	default:
		// JSON syntax: a string is a template; read it as one.
		s, diags := evalJSONLiteral(expr)
		if diags.HasErrors() {
			return diags
		}
		if !strings.Contains(s, "${") && !strings.Contains(s, "%{") {
			v.Parts = append(v.Parts, ir.ValuePart{Lit: s})
			return nil
		}
		start := expr.Range().Start
		start.Column++
		start.Byte++
		tmpl, diags := hclsyntax.ParseTemplate([]byte(s), expr.Range().Filename, start)
		if diags.HasErrors() {
			return diags
		}
		return appendValue(v, tmpl, ctx)
	}
	s, diags := evalString(expr, ctx)
	if !diags.HasErrors() {
		v.Parts = append(v.Parts, ir.ValuePart{Lit: s})
	}
	return diags
}

// evalJSONLiteral reads a JSON-syntax string without interpreting templates.
func evalJSONLiteral(expr hcl.Expression) (string, hcl.Diagnostics) {
	return evalString(expr, nil)
}

// envArg reads env("NAME") or env("NAME", "DEFAULT"): both literal
// strings, the default standing in when the variable is unset.
func envArg(args []hclsyntax.Expression, rng hcl.Range) (ir.ValuePart, hcl.Diagnostics) {
	bad := func(summary, detail string, at hcl.Range) (ir.ValuePart, hcl.Diagnostics) {
		return ir.ValuePart{}, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: at.Ptr()}}
	}
	if len(args) != 1 && len(args) != 2 {
		return bad("Invalid env call", "env takes the variable name and, optionally, a default for when it is unset: env(\"NAME\") or env(\"NAME\", \"default\").", rng)
	}
	name, diags := evalString(args[0], nil)
	if diags.HasErrors() {
		return bad("Invalid env call", "The variable name must be a literal string: env(\"NAME\").", args[0].Range())
	}
	if !envNameRe.MatchString(name) {
		return bad("Invalid environment variable name", fmt.Sprintf("%q is not a valid environment variable name; use letters, digits and underscores.", name), args[0].Range())
	}
	p := ir.ValuePart{Env: name}
	if len(args) == 2 {
		def, diags := evalString(args[1], nil)
		if diags.HasErrors() {
			return bad("Invalid env call", "The default must be a literal string: env(\"NAME\", \"default\").", args[1].Range())
		}
		p.Default, p.HasDefault = def, true
	}
	return p, nil
}

// literalOnly returns v's text when it has no env() part.
func literalOnly(v ir.Value) (string, bool) {
	var b strings.Builder
	for _, p := range v.Parts {
		if p.Env != "" {
			return "", false
		}
		b.WriteString(p.Lit)
	}
	return strings.TrimSpace(b.String()), true
}

// compiledText is what of a value is compiled into the binary: its
// literal text and its env() defaults. A secret there is as exposed as a
// literal one.
func compiledText(v ir.Value) (text string, hasDefault bool) {
	var b strings.Builder
	for _, p := range v.Parts {
		b.WriteString(p.Lit)
		if p.HasDefault && p.Default != "" {
			b.WriteString(p.Default)
			hasDefault = true
		}
	}
	return strings.TrimSpace(b.String()), hasDefault
}

// emptyLiteral reports a value of blank literal text and no env() part.
func emptyLiteral(v ir.Value) bool {
	lit, ok := literalOnly(v)
	return ok && lit == ""
}

func mergeLits(v ir.Value) ir.Value {
	var out ir.Value
	for _, p := range v.Parts {
		n := len(out.Parts)
		if p.Env == "" && n > 0 && out.Parts[n-1].Env == "" {
			out.Parts[n-1].Lit += p.Lit
			continue
		}
		out.Parts = append(out.Parts, p)
	}
	if len(out.Parts) == 0 {
		out.Parts = []ir.ValuePart{{Lit: ""}}
	}
	return out
}

// keyValue is one decoded entry of a map attribute.
type keyValue struct {
	Key        string
	KeyRange   hcl.Range
	Value      ir.Value
	ValueRange hcl.Range
}

// decodeValueMap reads a map of env-capable values (env, headers).
func decodeValueMap(expr hcl.Expression, ctx *hcl.EvalContext) ([]keyValue, hcl.Diagnostics) {
	pairs, diags := hcl.ExprMap(expr)
	if diags.HasErrors() {
		return nil, diags
	}
	var out []keyValue
	eachUniqueKey(pairs, "key", &diags, func(k string, p hcl.KeyValuePair) {
		v, d := decodeValue(p.Value, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			out = append(out, keyValue{k, p.Key.Range(), v, p.Value.Range()})
		}
	})
	return out, diags
}

// eachUniqueKey calls each with every pair of a map expression whose key
// is a string not given before; a repeated key is reported as a duplicate
// of what.
func eachUniqueKey(pairs []hcl.KeyValuePair, what string, diags *hcl.Diagnostics, each func(k string, p hcl.KeyValuePair)) {
	seen := map[string]hcl.Range{}
	for _, p := range pairs {
		k, d := evalString(p.Key, nil)
		*diags = append(*diags, d...)
		if d.HasErrors() {
			continue
		}
		if prev, dup := seen[k]; dup {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Duplicate " + what,
				Detail:   fmt.Sprintf("The %s %q is already defined at %s.", what, k, shortPos(prev)),
				Subject:  p.Key.Range().Ptr(),
			})
			continue
		}
		seen[k] = p.Key.Range()
		each(k, p)
	}
}

func irKeyValues(kvs []keyValue) []ir.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]ir.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = ir.KeyValue{Key: kv.Key, Value: kv.Value}
	}
	sortBy(out, func(kv ir.KeyValue) string { return kv.Key })
	return out
}

// checkGlobs reports patterns that path.Match rejects.
func checkGlobs(list []str) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, s := range list {
		if !validGlob(s.Val) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid glob",
				Detail:   fmt.Sprintf("%q is not a valid glob pattern (path.Match syntax: *, ?, [a-z], \\ to escape).", s.Val),
				Subject:  s.Range.Ptr(),
			})
		}
	}
	return diags
}

// validGlob reports whether path.Match accepts pattern.
func validGlob(pattern string) bool {
	_, err := path.Match(pattern, "")
	return err == nil && pattern != ""
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// shortPos renders a range start as FILE:LINE for "already defined at".
func shortPos(r hcl.Range) string {
	return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line)
}

// attrReader reads a block's attributes: each in the block's evaluation
// context, adding to its diagnostics.
type attrReader struct {
	attrs hcl.Attributes
	ctx   *hcl.EvalContext
	diags *hcl.Diagnostics
}

// readAttr evaluates the attribute name, when the block sets it, into
// *dst. It returns the attribute and whether its value is valid (nil and
// false when it is not set).
func readAttr[T any](in attrReader, name string, eval func(hcl.Expression, *hcl.EvalContext) (T, hcl.Diagnostics), dst *T) (*hcl.Attribute, bool) {
	at := in.attrs[name]
	if at == nil {
		return nil, false
	}
	v, d := eval(at.Expr, in.ctx)
	*in.diags = append(*in.diags, d...)
	*dst = v
	return at, !d.HasErrors()
}

// intIn is evalInt with its bounds, for readAttr.
func intIn(min, max int64) func(hcl.Expression, *hcl.EvalContext) (int, hcl.Diagnostics) {
	return func(expr hcl.Expression, ctx *hcl.EvalContext) (int, hcl.Diagnostics) {
		return evalInt(expr, ctx, min, max)
	}
}

// oneOf is evalEnum with its choices, for readAttr.
func oneOf(what string, choices []string) func(hcl.Expression, *hcl.EvalContext) (string, hcl.Diagnostics) {
	return func(expr hcl.Expression, ctx *hcl.EvalContext) (string, hcl.Diagnostics) {
		return evalEnum(expr, ctx, what, choices)
	}
}
