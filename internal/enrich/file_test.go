package enrich_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// TestStoredFile: no file reads as nil; a written file reads back; writing
// the same content again leaves the file alone; a broken file is an error
// naming it.
func TestStoredFile(t *testing.T) {
	dir := t.TempDir()
	if e, err := enrich.ReadStored(dir); e != nil || err != nil {
		t.Fatalf("no file: %v %v", e, err)
	}
	r, _ := run(t, "openai", newScribe(t), memoryTools[:3], nil, nil)
	if written, err := enrich.WriteStored(dir, r.File); !written || err != nil {
		t.Fatalf("write: %v %v", written, err)
	}
	path := filepath.Join(dir, search.EnrichmentFile)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	back, err := enrich.ReadStored(dir)
	if err != nil || !cmp.Equal(back, r.File) {
		t.Fatalf("read back: %v\n%s", err, cmp.Diff(r.File, back))
	}
	if written, err := enrich.WriteStored(dir, back); written || err != nil {
		t.Errorf("rewrite of the same content: %v %v", written, err)
	}
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Error("an unchanged file was touched")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("stray files: %v", entries)
	}
	os.WriteFile(path, []byte(`{"version": 2, "tools": {}}`), 0o644)
	if _, err := enrich.ReadStored(dir); err == nil || !strings.Contains(err.Error(), "toolgen.enrich.json: version 2 is not supported") {
		t.Errorf("broken file: %v", err)
	}
}
