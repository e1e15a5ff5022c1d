package main

import (
	"bytes"
	"fmt"
	"strings"
)

// unifiedDiff returns the unified diff (3 lines of context) that turns a
// into b, or "" when they are equal. Lines are matched with Myers' O(ND)
// algorithm after trimming the common prefix and suffix; when the files
// differ in more than maxEdits lines the whole differing middle becomes one
// hunk, which is still a correct diff, just not a minimal one.
func unifiedDiff(aName, bName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := diffLines(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	writeHunks(&out, ops, x, y)
	return out.String()
}

// splitLines splits after each newline, keeping it; a last line without
// one is marked as Git does.
func splitLines(b []byte) []string {
	var lines []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			lines = append(lines, string(b)+"\n\\ No newline at end of file\n")
			break
		}
		lines = append(lines, string(b[:i+1]))
		b = b[i+1:]
	}
	return lines
}

type opKind byte

const (
	opEqual opKind = ' '
	opDel   opKind = '-'
	opIns   opKind = '+'
)

// op is one line of the edit script: x[i] for equal and delete, y[j] for
// insert.
type op struct {
	kind opKind
	i, j int
}

const maxEdits = 4000

func diffLines(x, y []string) []op {
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var ops []op
	for k := range pre {
		ops = append(ops, op{opEqual, k, k})
	}
	ops = append(ops, myers(x[pre:len(x)-suf], y[pre:len(y)-suf], pre, pre)...)
	for k := range suf {
		ops = append(ops, op{opEqual, len(x) - suf + k, len(y) - suf + k})
	}
	return ops
}

// myers returns the shortest edit script of x → y; offsets shift the
// indexes it reports.
func myers(x, y []string, xoff, yoff int) []op {
	n, m := len(x), len(y)
	replaceAll := func() []op {
		ops := make([]op, 0, n+m)
		for i := range n {
			ops = append(ops, op{opDel, xoff + i, 0})
		}
		for j := range m {
			ops = append(ops, op{opIns, 0, yoff + j})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return replaceAll()
	}
	max := min(n+m, maxEdits)
	// trace[d] holds V for diagonals -d..d after d edits.
	var trace [][]int
	v := []int{0, 0, 0} // V for d = -1, indexed k+1+d... start: V[1] = 0
	off := 1
	found := -1
	for d := 0; d <= max; d++ {
		nv := make([]int, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var xi int
			if k == -d || k != d && get(v, off, k-1) < get(v, off, k+1) {
				xi = get(v, off, k+1) // down: insertion
			} else {
				xi = get(v, off, k-1) + 1 // right: deletion
			}
			yi := xi - k
			for xi < n && yi < m && x[xi] == y[yi] {
				xi++
				yi++
			}
			nv[k+d] = xi
			if xi >= n && yi >= m {
				found = d
			}
		}
		trace = append(trace, nv)
		v, off = nv, d
		if found >= 0 {
			break
		}
	}
	if found < 0 {
		return replaceAll()
	}
	// Walk back from (n, m).
	var rev []op
	xi, yi := n, m
	for d := found; d > 0; d-- {
		prev := trace[d-1]
		k := xi - yi
		var pk int
		if k == -d || k != d && get(prev, d-1, k-1) < get(prev, d-1, k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(prev, d-1, pk)
		py := px - pk
		for xi > px && yi > py { // the snake after the edit
			rev = append(rev, op{opEqual, xoff + xi - 1, yoff + yi - 1})
			xi--
			yi--
		}
		if pk == k+1 {
			rev = append(rev, op{opIns, 0, yoff + yi - 1})
			yi--
		} else {
			rev = append(rev, op{opDel, xoff + xi - 1, 0})
			xi--
		}
	}
	for xi > 0 && yi > 0 {
		rev = append(rev, op{opEqual, xoff + xi - 1, yoff + yi - 1})
		xi--
		yi--
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

// get reads V[k] from a slice covering diagonals -d..d; outside it reads
// the virtual start value 0.
func get(v []int, d, k int) int {
	if k+d < 0 || k+d >= len(v) {
		return 0
	}
	return v[k+d]
}

// writeHunks prints the edit script as unified hunks with 3 lines of
// context.
func writeHunks(out *strings.Builder, ops []op, x, y []string) {
	const context = 3
	for start := 0; start < len(ops); {
		// Find the next change.
		for start < len(ops) && ops[start].kind == opEqual {
			start++
		}
		if start >= len(ops) {
			return
		}
		lo := max(start-context, 0)
		end := start
		for {
			for end < len(ops) && ops[end].kind != opEqual {
				end++
			}
			eq := end
			for eq < len(ops) && ops[eq].kind == opEqual {
				eq++
			}
			if eq < len(ops) && eq-end <= 2*context {
				end = eq
				continue
			}
			break
		}
		hi := min(end+context, len(ops))
		// Line numbers of the hunk in x and y (1-based).
		xs, ys, xn, yn := hunkStart(ops, lo)
		for _, o := range ops[lo:hi] {
			switch o.kind {
			case opEqual:
				xn++
				yn++
			case opDel:
				xn++
			case opIns:
				yn++
			}
		}
		fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(xs, xn), hunkRange(ys, yn))
		for _, o := range ops[lo:hi] {
			switch o.kind {
			case opEqual:
				out.WriteString(" " + x[o.i])
			case opDel:
				out.WriteString("-" + x[o.i])
			case opIns:
				out.WriteString("+" + y[o.j])
			}
		}
		start = hi
	}
}

// hunkStart is the 1-based first line in x and y of the hunk starting at
// ops[lo], with zero counts.
func hunkStart(ops []op, lo int) (xs, ys, xn, yn int) {
	for _, o := range ops[:lo] {
		switch o.kind {
		case opEqual:
			xs++
			ys++
		case opDel:
			xs++
		case opIns:
			ys++
		}
	}
	return xs + 1, ys + 1, 0, 0
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
