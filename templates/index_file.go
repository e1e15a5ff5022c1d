package templates

import (
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// emitIndexFile writes index_gen.go, declaring indexVar.
//
// Until templates.EmitIndex lands, the index is nil, which the runtime
// reads as "build it at start-up".
func emitIndexFile(spec *ir.Spec, source string) ([]byte, error) {
	f := newFile(spec, source)
	f.Comment(indexVar + " is the precompiled search index; nil builds it at start-up.")
	f.Var().Id(indexVar).Op("*").Qual(searchPkg, "Index")
	return render(f)
}
