package runtime

import (
	"encoding/json"
	"slices"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// finder is the pool's search index: the precompiled Registry.Index (or one
// built at start-up) plus the tools servers reported at run time, added
// incrementally.
type finder struct {
	idx *search.Index
}

func newFinder(reg *Registry, tools []*PoolTool, prev *finder) *finder {
	var base *search.Index
	switch {
	case prev != nil:
		base = prev.idx
	case reg.Index != nil:
		base = reg.Index
	default:
		docs := make([]search.Doc, len(tools))
		for i, t := range tools {
			docs[i] = toolDoc(t)
		}
		return &finder{idx: search.Build(docs)}
	}
	var missing []search.Doc
	for _, t := range tools {
		d, ok := base.Doc(t.Name)
		if !ok || d.Description != t.Description {
			missing = append(missing, toolDoc(t))
		}
	}
	if len(missing) > 0 {
		base = base.With(missing...)
	}
	return &finder{idx: base}
}

func toolDoc(t *PoolTool) search.Doc {
	return search.Doc{
		Name: t.Name, Description: t.Description, Category: t.Category,
		Keywords: t.Keywords, Params: schemaParams(t.InputSchema),
	}
}

// schemaParams lists the top-level property names of an input schema.
func schemaParams(s json.RawMessage) []string {
	var v struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(s, &v) != nil {
		return nil
	}
	out := make([]string, 0, len(v.Properties))
	for k := range v.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (f *finder) search(query string, limit int, keep func(string) bool) []search.Hit {
	return f.idx.SearchFunc(query, limit, keep)
}
