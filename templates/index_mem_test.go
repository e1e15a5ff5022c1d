package templates

import (
	"bytes"
	"fmt"
	"go/format"
	goruntime "runtime"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// EmitIndex writes the tables straight into a file of the right size: on
// a big catalog the file is tens of megabytes, and quoting each table,
// joining them in a growing builder and splicing that into the rendered
// file made four copies of it (index_gen.go dominated toolgen generate's
// peak at 50,000 tools). What it allocates stays near the file's size.
func TestEmitIndexAllocatesAboutItsOutput(t *testing.T) {
	docs := make([]search.Doc, 5000)
	for i := range docs {
		docs[i] = search.Doc{Name: fmt.Sprintf("get_item_%05d", i), Description: fmt.Sprintf("Read item %d of project %d.", i, i%97),
			Category: "items", Keywords: []string{fmt.Sprintf("k%d", i%300)}, Params: []string{"id", "owner"}}
	}
	tables := search.Build(docs).Tables()
	out, err := EmitIndex("agent", "spec", tables)
	if err != nil {
		t.Fatal(err)
	}
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	again, err := EmitIndex("agent", "spec", tables)
	goruntime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("a second emission differs (%v)", err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("index_gen.go %d KB, emitting it allocated %d KB", len(out)>>10, allocated>>10)
	if limit := uint64(len(out)) * 3 / 2; allocated > limit {
		t.Errorf("emitting a %d KB index allocated %d KB, want ≤ 1.5× the file", len(out)>>10, allocated>>10)
	}
	// Still what gofmt writes: the layout is writeComposite's.
	if formatted, err := format.Source(out); err != nil || !bytes.Equal(formatted, out) {
		t.Errorf("index_gen.go is not gofmt'd (%v)", err)
	}
}
