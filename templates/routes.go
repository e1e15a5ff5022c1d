package templates

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

const (
	bundlesVar = private + "RouteBundles"
	matchFunc  = private + "Match"
)

// emitRoutes writes routes_gen.go: the workflow route as nested switches
// over packed bundle names, and one allow check per agent.
func emitRoutes(spec *ir.Spec, source string) ([]byte, error) {
	f := newFile(spec, source)
	emitRoute(f, spec)
	globs := false
	for _, a := range spec.Agents {
		set := agentAllow(spec, a)
		globs = globs || len(set.Globs) > 0
		f.Line()
		emitAllow(f, a, set)
	}
	if globs {
		f.Line()
		f.Comment(matchFunc + " reports whether name matches a path.Match pattern; the")
		f.Comment("patterns were checked at generate time.")
		f.Func().Id(matchFunc).Params(jen.List(jen.Id("pattern"), jen.Id("name")).String()).Bool().Block(
			jen.List(jen.Id("ok"), jen.Id("_")).Op(":=").Qual("path", "Match").Call(jen.Id("pattern"), jen.Id("name")),
			jen.Return(jen.Id("ok")),
		)
	}
	return render(f)
}

// emitRoute prints Registry.Route. Each step returns a full slice
// expression of one packed array, so a route costs no allocation and an
// append by the caller cannot write into the next step's bundles. An
// unknown address returns nil: deny by default.
func emitRoute(f *jen.File, spec *ir.Spec) {
	var packed []jen.Code
	offset := 0
	f.Comment(routeFunc + " returns the bundles of a workflow step, nil for an unknown step")
	f.Comment("(deny by default). The result must not be modified.")
	f.Func().Id(routeFunc).Params(jen.List(jen.Id("workflow"), jen.Id("role"), jen.Id("step")).String()).Index().String().BlockFunc(func(g *jen.Group) {
		if len(spec.Workflows) == 0 {
			g.Return(jen.Nil())
			return
		}
		g.Switch(jen.Id("workflow")).BlockFunc(func(g *jen.Group) {
			for _, w := range spec.Workflows {
				g.Case(jen.Lit(w.Name)).Block(jen.Switch(jen.Id("role")).BlockFunc(func(g *jen.Group) {
					for _, r := range w.Roles {
						g.Case(jen.Lit(r.Name)).Block(jen.Switch(jen.Id("step")).BlockFunc(func(g *jen.Group) {
							for _, s := range r.Steps {
								lo, hi := offset, offset+len(s.Bundles)
								for _, b := range s.Bundles {
									packed = append(packed, jen.Lit(b))
								}
								offset = hi
								g.Case(jen.Lit(s.Name)).Block(jen.Return(
									jen.Id(bundlesVar).Index(jen.Lit(lo), jen.Lit(hi), jen.Lit(hi)),
								))
							}
						}))
					}
				}))
			}
		})
		g.Return(jen.Nil())
	})
	if len(spec.Workflows) == 0 {
		return
	}
	f.Line()
	f.Comment(bundlesVar + " holds the bundles of every step, packed in switch order.")
	f.Var().Id(bundlesVar).Op("=").Index(jen.Op("...")).String().Custom(
		jen.Options{Open: "{", Close: "}", Separator: ",", Multi: len(packed) > 0}, packed...)
}

// emitAllow prints an agent's allow check: a switch over the names known
// now, then the glob rules for tools servers may add at run time.
func emitAllow(f *jen.File, a *ir.Agent, set *allowSet) {
	what := "every tool in use"
	if a.AllowedSet {
		what = "its tools.allowed list"
	}
	f.Comment(fmt.Sprintf("%s reports whether agent %q may call a tool, by %s.", allowFunc(a), a.Name, what))
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
		for _, r := range set.Globs {
			cond := jen.Id(matchFunc).Call(jen.Lit(r.Pattern), jen.Id("name"))
			for _, e := range r.Except {
				cond = cond.Op("&&").Op("!").Id(matchFunc).Call(jen.Lit(e), jen.Id("name"))
			}
			g.If(cond).Block(jen.Return(jen.True()))
		}
		g.Return(jen.False())
	})
}
