package search

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Enrichment is stored, not computed here: a language model writes, for
// each tool, requests a user might type when they need exactly that tool,
// and the index searches them as one more field (Doc.Queries). The file
// lives beside the lock file and is committed, so generating code stays
// deterministic and offline.

// EnrichmentFile is the enrichment's file name inside a spec directory.
const EnrichmentFile = "toolgen.enrich.json"

// EnrichmentVersion is the format version this package reads and writes.
const EnrichmentVersion = 1

// Limits on one tool's stored queries; more is a broken file, not data.
const (
	maxEnrichQueries     = 64
	maxEnrichQueryLength = 500
)

// Enrichment is toolgen.enrich.json:
//
//	{"version": 1, "prompt_version": "…", "model": "…",
//	 "tools": {"<exposed name>": {"hash": "sha256:…", "queries": ["…"]}}}
//
// PromptVersion names the prompt the queries were written with and Model
// the model that wrote them; a tool's Hash is EnrichmentHash of the tool as
// it was then, so a tool that changed since can be told apart.
type Enrichment struct {
	Version       int                      `json:"version"`
	PromptVersion string                   `json:"prompt_version"`
	Model         string                   `json:"model,omitempty"`
	Tools         map[string]*EnrichedTool `json:"tools"`
}

// EnrichedTool is one tool's stored queries.
type EnrichedTool struct {
	Hash    string   `json:"hash"`
	Queries []string `json:"queries"`
}

// EnrichmentHash fingerprints what the enrichment of a tool is written
// from: its exposed name, its description and its top-level parameter names
// (in any order). Generator and runtime both key stored queries by it.
func EnrichmentHash(name, description string, params []string) string {
	params = slices.Clone(params)
	slices.Sort(params)
	h := sha256.New()
	for _, part := range append([]string{name, description}, params...) {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// EnrichmentError is a problem with one tool's entry.
type EnrichmentError struct {
	Tool string
	Msg  string
}

func (e *EnrichmentError) Error() string { return fmt.Sprintf("tool %q: %s", e.Tool, e.Msg) }

// ParseEnrichment reads toolgen.enrich.json. Syntax errors are the
// *json.SyntaxError or *json.UnmarshalTypeError of encoding/json, so the
// caller can point at the offset.
func ParseEnrichment(b []byte) (*Enrichment, error) {
	var e Enrichment
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON object")
	}
	if e.Version != EnrichmentVersion {
		return nil, fmt.Errorf("version %d is not supported (this toolgen reads version %d)", e.Version, EnrichmentVersion)
	}
	for name, t := range e.Tools {
		if t == nil {
			return nil, &EnrichmentError{name, "no hash and queries"}
		}
		if !strings.HasPrefix(t.Hash, "sha256:") {
			return nil, &EnrichmentError{name, fmt.Sprintf("hash %q is not \"sha256:…\"", t.Hash)}
		}
		if err := checkQueries(t.Queries); err != nil {
			return nil, &EnrichmentError{name, err.Error()}
		}
	}
	return &e, nil
}

func checkQueries(qs []string) error {
	if len(qs) > maxEnrichQueries {
		return fmt.Errorf("%d queries, at most %d are kept", len(qs), maxEnrichQueries)
	}
	for i, q := range qs {
		switch {
		case strings.TrimSpace(q) == "":
			return fmt.Errorf("query %d is empty", i+1)
		case len(q) > maxEnrichQueryLength:
			return fmt.Errorf("query %d is %d bytes, at most %d", i+1, len(q), maxEnrichQueryLength)
		}
	}
	return nil
}

// Marshal writes the enrichment in its canonical form: tools sorted by
// name, two-space indent, trailing newline.
func (e *Enrichment) Marshal() ([]byte, error) {
	out := *e
	out.Version = EnrichmentVersion
	if out.Tools == nil {
		out.Tools = map[string]*EnrichedTool{}
	}
	b, err := json.MarshalIndent(out, "", "  ") // maps marshal in key order
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseQueryLines reads enrichment as JSON lines {"name", "queries"}, one
// tool a line, the exchange form of `toolgen find --enrich`.
func ParseQueryLines(r io.Reader) (map[string][]string, error) {
	out := map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var t struct {
			Name    string   `json:"name"`
			Queries []string `json:"queries"`
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		err := dec.Decode(&t)
		switch {
		case err != nil:
		case t.Name == "":
			err = errors.New(`want {"name": "...", "queries": [...]}`)
		case out[t.Name] != nil:
			err = fmt.Errorf("tool %q is listed twice", t.Name)
		default:
			err = checkQueries(t.Queries)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out[t.Name] = append([]string{}, t.Queries...)
	}
	return out, sc.Err()
}
