package enrich

import (
	"slices"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// Tool is what the model is told about one tool, and all it is told.
type Tool struct {
	// Name is the exposed name (github__search_code).
	Name        string
	Description string
	// Params are the input schema's top-level property names.
	Params []string
}

// Hash is the key its queries are stored under: search.EnrichmentHash.
func (t Tool) Hash() string { return search.EnrichmentHash(t.Name, t.Description, t.Params) }

// FromDocs returns the tools of search documents (a catalog read with
// search.ParseCatalog, or the runtime's pool).
func FromDocs(docs []search.Doc) []Tool {
	out := make([]Tool, len(docs))
	for i, d := range docs {
		out[i] = Tool{Name: d.Name, Description: d.Description, Params: slices.Clone(d.Params)}
	}
	return out
}
