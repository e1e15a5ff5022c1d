package didyoumean

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"read_file", "read_fiel", 2}, {"same", "same", 0},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"read_file", "write_file", "github__search_code", "tool_find", "reader"}
	for _, c := range []struct {
		name string
		n    int
		want []string
	}{
		{"read_fiel", 3, []string{"read_file"}},
		{"READ_FILE", 3, []string{"read_file"}},
		{"search_code", 3, []string{"github__search_code"}}, // contained
		{"read", 3, []string{"reader", "read_file"}},        // closest first
		{"zzzzzz", 3, []string{}},
		{"read_file", 1, []string{"read_file"}},
	} {
		got := Nearest(c.name, names, c.n)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Nearest(%q) (-want +got):\n%s", c.name, diff)
		}
	}
}
