package runtime

import (
	"sync"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// router resolves step addresses to bundles, with runtime overrides and a
// cache per address so that a step always gets the same bundle IDs.
type router struct {
	reg       *Registry
	overrides map[string][]string
	cache     sync.Map // addr → []string
}

func newRouter(reg *Registry, overrides map[string][]string) *router {
	return &router{reg: reg, overrides: overrides}
}

// bundles returns the bundles of a step and whether they came from an
// override.
func (rt *router) bundles(workflow, role, step string) (bundles []string, overridden bool) {
	addr := decl.StepAddr(workflow, role, step)
	if b, ok := rt.overrides[addr]; ok {
		return b, true
	}
	if b, ok := rt.cache.Load(addr); ok {
		return b.([]string), false
	}
	b := rt.reg.StepBundles(workflow, role, step)
	rt.cache.Store(addr, b)
	return b, false
}
