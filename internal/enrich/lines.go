package enrich

import (
	"encoding/json"
	"io"
	"slices"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// The committed file (toolgen.enrich.json) keys queries by tool and hash;
// `toolgen find --enrich` and the shared evaluation data take JSON lines
// {"name", "queries"}, which carry no hash. These convert between them.

// WriteLines writes e's queries as JSON lines {"name", "queries"}, sorted
// by name.
func WriteLines(w io.Writer, e *search.Enrichment) error {
	names := make([]string, 0, len(e.Tools))
	for name := range e.Tools {
		names = append(names, name)
	}
	slices.Sort(names)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, name := range names {
		line := struct {
			Name    string   `json:"name"`
			Queries []string `json:"queries"`
		}{name, e.Tools[name].Queries}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// FromLines reads JSON lines {"name", "queries"} (search.ParseQueryLines)
// into the committed form for tools: each line's tool gets the hash of the
// tool of that name, as if the queries had been written for it now. Names
// that are not among tools are returned, sorted, and left out.
func FromLines(r io.Reader, tools []Tool, promptVersion, modelName string) (e *search.Enrichment, unknown []string, err error) {
	lines, err := search.ParseQueryLines(r)
	if err != nil {
		return nil, nil, err
	}
	e = &search.Enrichment{Version: search.EnrichmentVersion, PromptVersion: promptVersion, Model: modelName,
		Tools: make(map[string]*search.EnrichedTool, len(lines))}
	for _, t := range tools {
		if qs, ok := lines[t.Name]; ok {
			e.Tools[t.Name] = &search.EnrichedTool{Hash: t.Hash(), Queries: qs}
			delete(lines, t.Name)
		}
	}
	for name := range lines {
		unknown = append(unknown, name)
	}
	slices.Sort(unknown)
	return e, unknown, nil
}
