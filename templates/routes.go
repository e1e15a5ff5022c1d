package templates

import (
	"github.com/dave/jennifer/jen"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

const (
	bundlesVar = private + "RouteBundles"
	matchFunc  = private + "Match"
)

// emitRoutes writes routes_gen.go: the workflow route as nested switches
// over packed bundle names, and the allow check of each agent that has
// tools.allowed.
func emitRoutes(spec *ir.Spec, _ *GoTools, source string) ([]byte, error) {
	f := newFile(spec, source)
	emitRoute(f, spec)
	globs := false
	for _, a := range spec.Agents {
		if a.Allow == nil {
			continue // no tools.allowed: the runtime never asks
		}
		globs = globs || len(a.Allow.Globs) > 0
		f.Line()
		emitAllow(f, a)
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

// route is one workflow step's address and bundles, in spec order.
type route struct {
	Workflow, Role, Step string
	Bundles              []string
}

func routes(spec *ir.Spec) []route {
	var out []route
	for _, w := range spec.Workflows {
		for _, r := range w.Roles {
			for _, s := range r.Steps {
				out = append(out, route{w.Name, r.Name, s.Name, s.Bundles})
			}
		}
	}
	return out
}
