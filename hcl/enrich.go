package hcl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// The enrichment file (search.EnrichmentFile, beside the lock file) stores,
// per exposed tool name, requests a user might type for the tool and the
// hash of the tool they were written for. The loader gives each catalog
// tool its queries; the search index holds them as one more field.

// enrichment is a read toolgen.enrich.json.
type enrichment struct {
	data *search.Enrichment
	file string // display name
	src  []byte
}

// readEnrichment reads DIR/toolgen.enrich.json when it exists.
func readEnrichment(dir string, fsys fs.FS) (*enrichment, hcl.Diagnostics) {
	name := displayName(dir, search.EnrichmentFile)
	b, err := fs.ReadFile(fsys, search.EnrichmentFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	rng := hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos}
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read enrichment file", Detail: fmt.Sprintf("Reading %s: %s.", name, unwrapPathErr(err)), Subject: &rng}}
	}
	e := &enrichment{file: name, src: b}
	e.data, err = search.ParseEnrichment(b)
	if err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		var ee *search.EnrichmentError
		switch {
		case errors.As(err, &se):
			rng = posRange(name, b, int(se.Offset))
		case errors.As(err, &te):
			rng = posRange(name, b, int(te.Offset))
		case errors.As(err, &ee):
			rng = e.toolRange(ee.Tool)
		}
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid enrichment file", Detail: fmt.Sprintf("%s: %s. Fix or delete the file; without it tools are searched by their own words.", name, err), Subject: &rng}}
	}
	return e, nil
}

// toolRange points at a tool's key in the file, or at its start.
func (e *enrichment) toolRange(tool string) hcl.Range {
	key := regexp.MustCompile(regexp.QuoteMeta(fmt.Sprintf("%q", tool)) + `\s*:`)
	loc := key.FindIndex(e.src)
	if loc == nil {
		return posRange(e.file, e.src, 0)
	}
	rng := posRange(e.file, e.src, loc[0])
	rng.End = posRange(e.file, e.src, loc[0]+len(fmt.Sprintf("%q", tool))).End
	return rng
}

// applyEnrichment gives each catalog tool its stored queries. Entries for
// tools the catalog does not have are ignored.
func applyEnrichment(spec *ir.Spec, e *enrichment) {
	if e == nil {
		return
	}
	for _, t := range spec.Catalog {
		if et := e.data.Tools[t.Name]; et != nil {
			t.Queries, t.EnrichHash, t.EnrichRange = et.Queries, et.Hash, e.toolRange(t.Name)
		}
	}
}
