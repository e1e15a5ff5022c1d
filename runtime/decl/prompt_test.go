package decl

import (
	"slices"
	"testing"
)

func TestPlaceholders(t *testing.T) {
	text := "Review {path} at {depth}, then {path} again; {not a placeholder} and {}."
	if got := Placeholders(text); !slices.Equal(got, []string{"path", "depth"}) {
		t.Errorf("Placeholders = %v", got)
	}
	got := FillPlaceholders(text, map[string]string{"path": "a/b c", "depth": "{path}"})
	if want := "Review a/b c at {path}, then a/b c again; {not a placeholder} and {}."; got != want {
		t.Errorf("FillPlaceholders = %q, want %q (values literal, not expanded again)", got, want)
	}
}

func TestMatchURI(t *testing.T) {
	for _, c := range []struct {
		pattern, uri string
		want         bool
	}{
		{"repo://*", "repo://a/b/c", true},
		{"repo://*", "repos://a", false},
		{"repo://a/*/c", "repo://a/x/y/c", true},
		{"demo://resource/static/*", "demo://resource/dynamic/text/1", false},
		{"[bad", "[bad", false},
	} {
		if got := MatchURI(c.pattern, c.uri); got != c.want {
			t.Errorf("MatchURI(%q, %q) = %v, want %v", c.pattern, c.uri, got, c.want)
		}
	}
	if !MatchAnyURI([]string{"docs://exact"}, "docs://exact") || MatchAnyURI([]string{"docs://exact"}, "docs://exactly") {
		t.Error("MatchAnyURI: exact entries match only themselves")
	}
}
