// Package rounds orders the sides of the benchmarks that run in
// alternating rounds (scripts/servedbench, scripts/httpbench).
package rounds

// Order is the order n sides run in round r (from 1): as listed in odd
// rounds, the other way round in even ones, so that no side always runs
// right after the same other side. Two sides served by one process (a
// 2025-11-25 and a 2026-07-28 host of the same agent) showed why: the
// second always ran with the first's garbage still to collect.
func Order(n, r int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
		if r%2 == 0 {
			order[i] = n - 1 - i
		}
	}
	return order
}
