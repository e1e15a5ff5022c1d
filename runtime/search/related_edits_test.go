package search

import (
	"math/rand/v2"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
)

// editsWithin answers as the edit distance does, for words of every length
// the vocabulary holds, and allocates nothing.
func TestEditsWithinMatchesDistance(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcde"[r.IntN(5)]
		}
		return string(b)
	}
	for range 20000 {
		a, b := word(r.IntN(12)), word(r.IntN(12))
		if r.IntN(70) == 0 {
			b = word(64 + r.IntN(4))
		}
		for k := range 4 {
			if got, want := editsWithin(a, b, k), didyoumean.Distance(a, b) <= k; got != want {
				t.Fatalf("editsWithin(%q, %q, %d) = %v, distance %d", a, b, k, got, didyoumean.Distance(a, b))
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { editsWithin("calender", "calendar", 2) }); n != 0 {
		t.Errorf("editsWithin allocates %v times", n)
	}
}

func FuzzEditsWithin(f *testing.F) {
	f.Add("calender", "calendar", 2)
	f.Fuzz(func(t *testing.T, a, b string, k int) {
		k = k & 3
		if got, want := editsWithin(a, b, k), didyoumean.Distance(a, b) <= k; got != want {
			t.Fatalf("editsWithin(%q, %q, %d) = %v, distance %d", a, b, k, got, didyoumean.Distance(a, b))
		}
	})
}
