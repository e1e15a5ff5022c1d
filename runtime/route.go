package runtime

import (
	"strings"
	"sync"
)

// StepBundles returns the bundles routed to a workflow step: the generated
// Route switch when present, the Workflows table otherwise. Deny by
// default: an unknown address has no bundles.
func (r *Registry) StepBundles(workflow, role, step string) []string {
	if r.Route != nil {
		return r.Route(workflow, role, step)
	}
	for _, w := range r.Workflows {
		if w.Name != workflow {
			continue
		}
		for _, ro := range w.Roles {
			if ro.Name != role {
				continue
			}
			for _, s := range ro.Steps {
				if s.Name == step {
					return s.Bundles
				}
			}
		}
	}
	return nil
}

// stepAddr is the "WF/ROLE/STEP" form of a step address.
func stepAddr(workflow, role, step string) string { return workflow + "/" + role + "/" + step }

// splitStepAddr parses "WF/ROLE/STEP".
func splitStepAddr(addr string) (wf, role, step string, ok bool) {
	parts := strings.Split(addr, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

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
	addr := stepAddr(workflow, role, step)
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
