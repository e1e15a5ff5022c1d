package hcl

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// bundleBlock is a named tool set: a server's tools filtered by allow/deny
// (direct or behind the meta tools), or a list of declared tools.
type bundleBlock struct {
	Name       string
	NameRange  hcl.Range
	Mode       string
	ModeRange  hcl.Range
	Server     *ref
	Tools      []ref
	AllowTools []str
	DenyTools  []str
	Skills     []ref
	DeclRange  hcl.Range
}

var (
	bundleModes  = []string{ir.ModeDirect, ir.ModeMeta}
	bundleSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "mode"}, {Name: "server"}, {Name: "tools"}, {Name: "allow_tools"}, {Name: "deny_tools"}, {Name: "skills"},
		},
	}
)

func decodeBundle(block *hcl.Block, ctx *hcl.EvalContext) (*bundleBlock, hcl.Diagnostics) {
	b := &bundleBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], Mode: ir.ModeDirect, ModeRange: block.DefRange, DeclRange: block.DefRange}
	diags := checkName("bundle", b.Name, b.NameRange)
	content, d := block.Body.Content(bundleSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	errAt := func(rng hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: block.DefRange.Ptr()})
	}
	if a := attrs["mode"]; a != nil {
		v, d := evalEnum(a.Expr, ctx, "bundle mode", bundleModes)
		diags = append(diags, d...)
		if v != "" {
			b.Mode, b.ModeRange = v, a.Expr.Range()
		}
	}
	if a := attrs["server"]; a != nil {
		r, d := decodeRef(a.Expr, "server")
		diags = append(diags, d...)
		if !d.HasErrors() {
			b.Server = &r
		}
	}
	if a := attrs["tools"]; a != nil {
		v, d := decodeRefs(a.Expr, "tool")
		diags = append(diags, d...)
		b.Tools = v
	}
	if a := attrs["skills"]; a != nil {
		v, d := decodeRefs(a.Expr, "skill")
		diags = append(diags, d...)
		b.Skills = v
	}
	for _, f := range []struct {
		name string
		dst  *[]str
	}{{"allow_tools", &b.AllowTools}, {"deny_tools", &b.DenyTools}} {
		if a := attrs[f.name]; a != nil {
			v, d := evalStrings(a.Expr, ctx)
			diags = append(diags, d...)
			diags = append(diags, checkGlobs(v)...)
			*f.dst = v
			if attrs["server"] == nil {
				errAt(a.NameRange, "Filter without server", fmt.Sprintf("%s filters a server's tools, but bundle %q has no server; list declared tools in tools instead.", f.name, b.Name))
			}
		}
	}
	diags = append(diags, checkAllowDeny(b.AllowTools, b.DenyTools, block.DefRange)...)
	switch {
	case attrs["server"] == nil && attrs["tools"] == nil && attrs["skills"] == nil:
		errAt(b.NameRange, "Empty bundle", fmt.Sprintf("Bundle %q needs server = server.NAME, tools = [tool.NAME, ...] or skills = [skill.NAME, ...].", b.Name))
	case attrs["server"] != nil && attrs["tools"] != nil:
		errAt(attrs["tools"].NameRange, "Bundle with server and tools", fmt.Sprintf("Bundle %q sets both server and tools; a bundle holds either one server's tools or declared tools. Split it into two bundles.", b.Name))
	case b.Mode == ir.ModeMeta && attrs["server"] == nil:
		errAt(b.ModeRange, "Meta bundle without server", fmt.Sprintf("A meta bundle exposes a server's tools through mcp_list_tools and mcp_call_tool; bundle %q needs server = server.NAME.", b.Name))
	}
	return b, diags
}
