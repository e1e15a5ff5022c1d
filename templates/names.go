package templates

import (
	"strconv"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// Private generated names start with this prefix, which user code in the
// same package is unlikely to use (stringer's _Day_name convention).
const private = "_toolgen"

// toolGoNames gives every tool of the registry (declared and locked server
// tools, by exposed name) the identifier part of its Tool constant.
// Declared tools keep the loader's GoName; a server tool is server + tool
// (github__search_code → GithubSearchCode). Where two tools would share an
// identifier, the later one in name order gets a numeric suffix, so the
// result is stable.
func toolGoNames(spec *ir.Spec) map[string]string {
	out := make(map[string]string, len(spec.Catalog))
	used := make(map[string]bool, len(spec.Catalog))
	for _, t := range spec.Tools {
		out[t.Name] = t.GoName
		used[t.GoName] = true
	}
	for _, c := range spec.Catalog {
		if _, ok := out[c.Name]; ok || c.Kind != ir.KindMCP {
			continue
		}
		base := ir.GoName(c.Name)
		if s := spec.Server(c.Server); s != nil {
			base = s.GoName + ir.GoName(c.Original)
		}
		id := base
		for n := 2; used[id]; n++ {
			id = base + strconv.Itoa(n)
		}
		used[id] = true
		out[c.Name] = id
	}
	return out
}
