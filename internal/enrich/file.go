package enrich

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// maxFileBytes matches the lock file's limit: a bigger enrichment file is
// not one toolgen wrote.
const maxFileBytes = 64 << 20

// ReadStored reads DIR/toolgen.enrich.json, or returns nil when there is
// none.
func ReadStored(dir string) (*search.Enrichment, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(search.EnrichmentFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB", search.EnrichmentFile, maxFileBytes>>20)
	}
	e, err := search.ParseEnrichment(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", search.EnrichmentFile, err)
	}
	return e, nil
}

// WriteStored writes e to DIR/toolgen.enrich.json in its canonical form
// (search.Enrichment.Marshal). It leaves a file that already holds exactly
// that untouched, keeping its time for build caches, and otherwise
// replaces it atomically, so an interrupted write never leaves half a file.
func WriteStored(dir string, e *search.Enrichment) (written bool, err error) {
	b, err := e.Marshal()
	if err != nil {
		return false, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false, err
	}
	defer root.Close()
	if old, err := root.ReadFile(search.EnrichmentFile); err == nil && bytes.Equal(old, b) {
		return false, nil
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := "." + search.EnrichmentFile + "." + hex.EncodeToString(rnd[:])
	if err := root.WriteFile(tmp, b, 0o644); err != nil {
		return false, err
	}
	if err := root.Rename(tmp, search.EnrichmentFile); err != nil {
		root.Remove(tmp)
		return false, err
	}
	return true, nil
}
