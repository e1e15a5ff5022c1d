package decl

import "strings"

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

// StepAddr is the "WF/ROLE/STEP" form of a step address.
func StepAddr(workflow, role, step string) string { return workflow + "/" + role + "/" + step }

// SplitStepAddr parses "WF/ROLE/STEP".
func SplitStepAddr(addr string) (wf, role, step string, ok bool) {
	parts := strings.Split(addr, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}
