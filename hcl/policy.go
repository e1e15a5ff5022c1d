package hcl

import (
	"fmt"
	"math"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// policyBlock configures one builtin tool implementation (fs_read, fs_write,
// shell_exec) and what it may touch.
type policyBlock struct {
	ir.Policy
	NameRange hcl.Range
}

var (
	builtins     = []string{ir.BuiltinFSRead, ir.BuiltinFSWrite, ir.BuiltinShellExec}
	policySchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "builtin", Required: true}, {Name: "allowed_paths"}, {Name: "allowed_commands"},
			{Name: "timeout"}, {Name: "max_output_bytes"}, {Name: "allow_hardlinks"},
		},
	}
)

func decodePolicy(block *hcl.Block, ctx *hcl.EvalContext) (*policyBlock, hcl.Diagnostics) {
	p := &policyBlock{NameRange: block.LabelRanges[0]}
	p.Name, p.GoName, p.Range = block.Labels[0], ir.GoName(block.Labels[0]), block.DefRange
	diags := checkName("policy", p.Name, p.NameRange)
	content, d := block.Body.Content(policySchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	errAt := func(rng hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: block.DefRange.Ptr()})
	}
	if a := attrs["builtin"]; a != nil {
		v, d := evalEnum(a.Expr, ctx, "builtin", builtins)
		diags = append(diags, d...)
		p.Builtin = v
	}
	// An attribute reported invalid is not reported missing as well.
	invalid := map[string]bool{}
	if a := attrs["allowed_paths"]; a != nil {
		v, d := evalStrings(a.Expr, ctx)
		diags = append(diags, d...)
		invalid["allowed_paths"] = d.HasErrors()
		p.AllowedPaths = strVals(v)
		for _, s := range v {
			if strings.TrimSpace(s.Val) == "" || strings.ContainsRune(s.Val, 0) {
				errAt(s.Range, "Invalid path", "An allowed path must name a directory or file.")
			}
		}
	}
	if a := attrs["allowed_commands"]; a != nil {
		v, d := evalStrings(a.Expr, ctx)
		diags = append(diags, d...)
		invalid["allowed_commands"] = d.HasErrors()
		p.AllowedCommands = strVals(v)
		for _, s := range v {
			if strings.TrimSpace(s.Val) == "" || strings.ContainsAny(s.Val, " \t\n;|&$`") {
				errAt(s.Range, "Invalid command", fmt.Sprintf("%q is not a program name. shell_exec runs argv without a shell, so list programs such as \"git\"; their arguments come from the call.", s.Val))
			}
		}
	}
	if a := attrs["timeout"]; a != nil {
		v, d := evalDuration(a.Expr, ctx)
		diags = append(diags, d...)
		p.Timeout = v
	}
	if a := attrs["max_output_bytes"]; a != nil {
		v, d := evalInt(a.Expr, ctx, 1, math.MaxInt32)
		diags = append(diags, d...)
		p.MaxOutputBytes = v
	}
	if a := attrs["allow_hardlinks"]; a != nil {
		v, d := evalBool(a.Expr, ctx)
		diags = append(diags, d...)
		p.AllowHardlinks = v
	}
	switch p.Builtin {
	case ir.BuiltinFSRead, ir.BuiltinFSWrite:
		if len(p.AllowedPaths) == 0 && !invalid["allowed_paths"] {
			rng := block.DefRange
			if a := attrs["allowed_paths"]; a != nil {
				rng = a.Expr.Range()
			}
			errAt(rng, "Missing allowed_paths", fmt.Sprintf("Policy %q uses %s, which needs at least one entry in allowed_paths; nothing outside them can be touched.", p.Name, p.Builtin))
		}
		if a := attrs["allowed_commands"]; a != nil {
			errAt(a.NameRange, "Attribute not used by builtin", fmt.Sprintf("%s does not run commands; allowed_commands belongs to shell_exec policies.", p.Builtin))
		}
	case ir.BuiltinShellExec:
		if len(p.AllowedCommands) == 0 && !invalid["allowed_commands"] {
			rng := block.DefRange
			if a := attrs["allowed_commands"]; a != nil {
				rng = a.Expr.Range()
			}
			errAt(rng, "Missing allowed_commands", fmt.Sprintf("Policy %q uses shell_exec, which needs at least one program in allowed_commands.", p.Name))
		}
		if a := attrs["allow_hardlinks"]; a != nil {
			errAt(a.NameRange, "Attribute not used by builtin", "shell_exec does not open files itself; allow_hardlinks belongs to fs_read and fs_write policies.")
		}
	}
	return p, diags
}
