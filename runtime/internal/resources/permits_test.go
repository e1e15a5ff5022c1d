package resources

import (
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A server's resource lists admit by name or URI and refuse by either.
func TestPermits(t *testing.T) {
	var f decl.Filter
	f.Add([]string{"repo://*", "Style guide"}, []string{"repo://secret/*", "Internal*"})
	for _, c := range []struct {
		name, uri string
		want      bool
	}{
		{"readme", "repo://a/readme", true},
		{"Style guide", "docs://style", true},
		{"key", "repo://secret/key", false},
		{"Internal notes", "repo://notes", false},
		{"other", "docs://other", false},
		{"", "repo://x", true}, // a URI made from a template has no name
	} {
		if got := Permits(f, c.name, c.uri); got != c.want {
			t.Errorf("Permits(%q, %q) = %v, want %v", c.name, c.uri, got, c.want)
		}
	}
	if !Permits(decl.Filter{}, "any", "any://thing") {
		t.Error("no lists: everything is permitted")
	}
}
