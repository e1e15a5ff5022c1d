package templates

import (
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// emitIndexFile writes index_gen.go: the search tables of the catalog,
// built by the same code the runtime uses for tools it discovers later.
func emitIndexFile(spec *ir.Spec, goTools *GoTools, source string) ([]byte, error) {
	return EmitIndex(spec.Package, source, search.Build(searchDocs(spec, goTools)).Tables())
}
