package runtime

import "fmt"

// TEMPORARY until runtime/rest lands (then providers_rest.go replaces this file).
func (st *agentState) restProvider(d *Tool) provider {
	return failing(fmt.Errorf("REST tools not wired yet"))
}
