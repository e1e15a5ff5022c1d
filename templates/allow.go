package templates

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// emitAllow prints an agent's allow check from the set the loader decided
// (ir.Agent.Allow): a switch over the names known now, then the globs, for
// tools servers may add at run time.
func emitAllow(f *jen.File, a *ir.Agent) {
	set := a.Allow
	f.Comment(fmt.Sprintf("%s reports whether agent %q may call a tool, by its tools.allowed list.", allowFunc(a), a.Name))
	f.Func().Id(allowFunc(a)).Params(jen.Id("name").String()).Bool().BlockFunc(func(g *jen.Group) {
		if len(set.Names) > 0 {
			cases := make([]jen.Code, len(set.Names))
			for i, n := range set.Names {
				if i == 0 {
					cases[i] = jen.Lit(n)
				} else {
					cases[i] = jen.Line().Lit(n)
				}
			}
			g.Switch(jen.Id("name")).Block(jen.Case(cases...).Block(jen.Return(jen.True())))
		}
		for _, p := range set.Globs {
			g.If(jen.Id(matchFunc).Call(jen.Lit(p), jen.Id("name"))).Block(jen.Return(jen.True()))
		}
		g.Return(jen.False())
	})
}

// allowCheck is the in-memory twin of the check emitAllow prints, for
// RuntimeRegistry; nil when the agent has none.
func allowCheck(set *ir.AllowSet) func(string) bool {
	if set == nil {
		return nil
	}
	return func(name string) bool {
		if _, ok := slices.BinarySearch(set.Names, name); ok {
			return true
		}
		for _, p := range set.Globs {
			if decl.Match(p, name) {
				return true
			}
		}
		return false
	}
}
