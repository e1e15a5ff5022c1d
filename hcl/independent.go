package hcl

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
)

// independentErrors keeps the errors resolve found in blocks that decoded
// without errors: those stand on their own, while anything said about a
// block that failed to decode may only follow from that failure (a
// misspelt attribute is not also a missing one). Warnings wait for a spec
// without errors.
func independentErrors(resolved, decoded hcl.Diagnostics, starts map[string][]int) hcl.Diagnostics {
	type block struct {
		file string
		i    int
	}
	blockOf := func(r *hcl.Range) (block, bool) {
		s := starts[r.Filename]
		i := sort.SearchInts(s, r.Start.Byte+1) - 1 // the last block starting at or before r
		return block{r.Filename, i}, i >= 0
	}
	failed := map[block]bool{}
	for _, d := range decoded {
		if d.Severity != hcl.DiagError || d.Subject == nil {
			continue
		}
		if b, ok := blockOf(d.Subject); ok {
			failed[b] = true
		}
	}
	var out hcl.Diagnostics
	for _, d := range resolved {
		if d.Severity != hcl.DiagError || d.Subject == nil {
			continue
		}
		if b, ok := blockOf(d.Subject); ok && !failed[b] {
			out = append(out, d)
		}
	}
	return out
}
