package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// ParseCatalog reads tools in MCP form: a tools/list result
// ({"tools":[{name, description, inputSchema}]}) or a JSON array of tools.
// Parameter names are the input schema's top-level properties, sorted; an
// optional "title" is searched with the description.
func ParseCatalog(data []byte) ([]Doc, error) {
	type tool struct {
		Name        string `json:"name"`
		Title       string `json:"title"`
		Description string `json:"description"`
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"inputSchema"`
		Meta struct {
			Category string   `json:"category"`
			Keywords []string `json:"keywords"`
		} `json:"_meta"`
	}
	var tools []tool
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &tools); err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
	} else {
		var list struct {
			Tools json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(trimmed, &list); err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		if list.Tools == nil {
			return nil, fmt.Errorf(`catalog: want a tools/list result {"tools": [...]} or a JSON array of tools`)
		}
		if err := json.Unmarshal(list.Tools, &tools); err != nil {
			return nil, fmt.Errorf("catalog: tools: %w", err)
		}
	}
	docs := make([]Doc, 0, len(tools))
	for i, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("catalog: tool %d has no name", i)
		}
		d := Doc{Name: t.Name, Description: t.Description, Category: t.Meta.Category, Keywords: t.Meta.Keywords}
		if t.Title != "" && t.Title != t.Name {
			d.Description = t.Title + ". " + d.Description
		}
		for p := range t.InputSchema.Properties {
			d.Params = append(d.Params, p)
		}
		sort.Strings(d.Params)
		docs = append(docs, d)
	}
	return docs, nil
}

// EnrichDocs sets the Queries of each doc named in queries and returns the
// names of queries that match no doc, sorted.
func EnrichDocs(docs []Doc, queries map[string][]string) (unknown []string) {
	seen := make(map[string]bool, len(queries))
	for i := range docs {
		if q, ok := queries[docs[i].Name]; ok {
			docs[i].Queries = q
			seen[docs[i].Name] = true
		}
	}
	for name := range queries {
		if !seen[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	return unknown
}
