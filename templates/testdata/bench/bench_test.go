// Package bench compares the switches toolgen generates (routes_gen.go,
// emitted from templates.benchSpec by TestBenchPackageUpToDate) with the
// lookups they replace: a map[string]bool and a sorted-slice binary search
// for allow checks, nested maps for routes.
//
//	go test -run '^$' -bench . -benchmem -count 10 ./templates/testdata/bench | benchstat -
package bench

import (
	"fmt"
	"slices"
	"sort"
	"testing"
)

var sink bool
var sinkRoute []string

// queries mixes allowed names with near misses (same prefix, unknown
// suffix), half and half, as a model's calls would.
func queries(names []string) []string {
	var q []string
	for i, n := range names {
		q = append(q, n)
		q = append(q, fmt.Sprintf("%s_x%d", n[:len(n)/2], i))
	}
	return q
}

var agents = []struct {
	name  string
	allow func(string) bool
}{
	{"small", _toolgenAllowSmall},
	{"medium", _toolgenAllowMedium},
	{"large", _toolgenAllowLarge},
}

func BenchmarkAllow(b *testing.B) {
	for _, a := range agents {
		names := allowNames[a.name]
		q := queries(names)
		set := make(map[string]bool, len(names))
		for _, n := range names {
			set[n] = true
		}
		sorted := slices.Clone(names)
		sort.Strings(sorted)
		b.Run(fmt.Sprintf("n=%d/switch", len(names)), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				sink = a.allow(q[i%len(q)])
			}
		})
		b.Run(fmt.Sprintf("n=%d/map", len(names)), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				sink = set[q[i%len(q)]]
			}
		})
		b.Run(fmt.Sprintf("n=%d/binsearch", len(names)), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				_, sink = slices.BinarySearch(sorted, q[i%len(q)])
			}
		})
	}
}

func BenchmarkRoute(b *testing.B) {
	nested := map[string]map[string]map[string][]string{}
	type addr struct{ w, r, s string }
	var q []addr
	for _, e := range routeTable {
		if nested[e.workflow] == nil {
			nested[e.workflow] = map[string]map[string][]string{}
		}
		if nested[e.workflow][e.role] == nil {
			nested[e.workflow][e.role] = map[string][]string{}
		}
		nested[e.workflow][e.role][e.step] = e.bundles
		q = append(q, addr{e.workflow, e.role, e.step}, addr{e.workflow, e.role, e.step + "_unknown"})
	}
	flat := map[[3]string][]string{}
	for _, e := range routeTable {
		flat[[3]string{e.workflow, e.role, e.step}] = e.bundles
	}
	b.Run(fmt.Sprintf("steps=%d/switch", len(routeTable)), func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			a := q[i%len(q)]
			sinkRoute = _toolgenRoute(a.w, a.r, a.s)
		}
	})
	b.Run(fmt.Sprintf("steps=%d/nested-maps", len(routeTable)), func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			a := q[i%len(q)]
			sinkRoute = nested[a.w][a.r][a.s]
		}
	})
	b.Run(fmt.Sprintf("steps=%d/flat-map", len(routeTable)), func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			a := q[i%len(q)]
			sinkRoute = flat[[3]string{a.w, a.r, a.s}]
		}
	})
}

// TestSwitchesAgreeWithTables: the generated code answers like the data.
func TestSwitchesAgreeWithTables(t *testing.T) {
	for _, a := range agents {
		names := allowNames[a.name]
		for _, n := range names {
			if !a.allow(n) {
				t.Errorf("%s: %q not allowed", a.name, n)
			}
		}
		for _, n := range queries(names)[1:] {
			if !slices.Contains(names, n) && a.allow(n) {
				t.Errorf("%s: unknown %q allowed", a.name, n)
			}
		}
	}
	for _, e := range routeTable {
		if got := _toolgenRoute(e.workflow, e.role, e.step); !slices.Equal(got, e.bundles) {
			t.Errorf("route %s/%s/%s = %v, want %v", e.workflow, e.role, e.step, got, e.bundles)
		}
	}
	if _toolgenRoute("workflow_0", "role_0", "nope") != nil {
		t.Error("unknown step routed")
	}
}
