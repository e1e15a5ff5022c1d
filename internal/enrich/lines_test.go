package enrich_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// TestLinesRoundTrip: JSON lines become the committed file with each
// tool's hash, and the file becomes lines that search.ParseQueryLines (the
// reader of `toolgen find --enrich`) reads back unchanged.
func TestLinesRoundTrip(t *testing.T) {
	in := `{"name": "memory__read_graph", "queries": ["show me everything you remember", "what do you know about me <3 & co"]}
{"name": "memory__create_entities", "queries": ["remember that Alice is my sister"]}
{"name": "gone__tool", "queries": ["a"]}
`
	f, unknown, err := enrich.FromLines(strings.NewReader(in), memoryTools, "reference", "by hand")
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(unknown, []string{"gone__tool"}) || len(f.Tools) != 2 {
		t.Fatalf("unknown %v, %d tools", unknown, len(f.Tools))
	}
	if got := f.Tools["memory__read_graph"].Hash; got != memoryTools[6].Hash() {
		t.Errorf("hash %s", got)
	}
	b, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := search.ParseEnrichment(b)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := enrich.WriteLines(&out, back); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"memory__create_entities","queries":["remember that Alice is my sister"]}
{"name":"memory__read_graph","queries":["show me everything you remember","what do you know about me <3 & co"]}
`
	if out.String() != want {
		t.Errorf("lines:\n%s\nwant\n%s", out.String(), want)
	}
	parsed, err := search.ParseQueryLines(&out)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := search.ParseQueryLines(strings.NewReader(in))
	delete(orig, "gone__tool")
	if diff := cmp.Diff(orig, parsed); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}

	if _, _, err := enrich.FromLines(strings.NewReader(`{"name": "a", "queries": [""]}`), nil, "", ""); err == nil {
		t.Error("an empty query was accepted")
	}
}
