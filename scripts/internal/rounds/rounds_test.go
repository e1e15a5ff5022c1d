package rounds

import (
	"slices"
	"testing"
)

func TestOrderAlternates(t *testing.T) {
	if got := Order(3, 1); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("round 1: %v", got)
	}
	if got := Order(3, 2); !slices.Equal(got, []int{2, 1, 0}) {
		t.Errorf("round 2: %v", got)
	}
	if got := Order(3, 3); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("round 3: %v", got)
	}
}
