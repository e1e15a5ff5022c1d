package hcl

import (
	"fmt"
	"math"
	"strings"
	"time"

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
			{Name: "max_processes"}, {Name: "max_memory_mib"}, {Name: "max_cpu_time"},
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
	in := attrReader{attrs, ctx, &diags}
	errAt := func(rng hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: block.DefRange.Ptr()})
	}
	readAttr(in, "builtin", oneOf("builtin", builtins), &p.Builtin)
	// An attribute reported invalid is not reported missing as well.
	invalid := map[string]bool{}
	// names reads a list attribute and checks each entry.
	names := func(name string, dst *[]string, check func(str)) {
		var v []str
		if a, ok := readAttr(in, name, evalStrings, &v); a != nil {
			invalid[name] = !ok
			*dst = strVals(v)
			for _, s := range v {
				check(s)
			}
		}
	}
	names("allowed_paths", &p.AllowedPaths, func(s str) {
		if strings.TrimSpace(s.Val) == "" || strings.ContainsRune(s.Val, 0) {
			errAt(s.Range, "Invalid path", "An allowed path must name a directory or file.")
		} else if d := checkAllowedPath(s, p.Builtin, block.DefRange); d != nil {
			diags = append(diags, d)
		}
	})
	names("allowed_commands", &p.AllowedCommands, func(s str) {
		if strings.TrimSpace(s.Val) == "" || strings.ContainsAny(s.Val, " \t\n;|&$`") {
			errAt(s.Range, "Invalid command", fmt.Sprintf("%q is not a program name. shell_exec runs argv without a shell, so list programs such as \"git\"; their arguments come from the call.", s.Val))
		} else if d := checkCommand(s, block.DefRange); d != nil {
			diags = append(diags, d)
		}
	})
	readAttr(in, "timeout", evalDuration, &p.Timeout)
	readAttr(in, "max_output_bytes", intIn(1, math.MaxInt32), &p.MaxOutputBytes)
	readAttr(in, "allow_hardlinks", evalBool, &p.AllowHardlinks)
	readAttr(in, "max_processes", intIn(1, 1<<22), &p.MaxProcesses)
	readAttr(in, "max_memory_mib", intIn(1, 1<<30), &p.MaxMemoryMiB)
	readAttr(in, "max_cpu_time", evalDuration, &p.MaxCPUTime)
	if a := attrs["max_cpu_time"]; a != nil && p.MaxCPUTime > 0 && p.MaxCPUTime < time.Second {
		errAt(a.Expr.Range(), "Invalid CPU time limit", "max_cpu_time counts whole seconds; give at least \"1s\".")
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
		for _, name := range []string{"max_processes", "max_memory_mib", "max_cpu_time"} {
			if a := attrs[name]; a != nil {
				errAt(a.NameRange, "Attribute not used by builtin", fmt.Sprintf("%s runs no commands; %s limits shell_exec's commands.", p.Builtin, name))
			}
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
