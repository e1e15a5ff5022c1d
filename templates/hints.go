package templates

import (
	"encoding/json"
	"strings"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// Keys of _meta that hosts with their own tool search read (Claude Code):
// words to find a tool by, and tools to keep loaded.
const (
	metaSearchHint = "anthropic/searchHint"
	metaAlwaysLoad = "anthropic/alwaysLoad"
	metaTask       = "toolgen.dev/task" // runtime/tasks.MetaKey
)

// maxSearchHint bounds the hint: a few phrases, not the whole enrichment.
const (
	maxSearchHint  = 240
	hintQueryCount = 3
)

// hostHints adds toolgen's hints to a tool's _meta: a search hint made of
// the tool's category, keywords and first stored enrichment queries, and
// alwaysLoad for always_load tools. Keys the server already set are kept
// as it set them. The result is deterministic (encoding/json sorts keys).
func hostHints(meta json.RawMessage, c *ir.CatalogTool, alwaysLoad bool, task string) json.RawMessage {
	hint := searchHint(c)
	if hint == "" && !alwaysLoad && task == "" {
		return meta
	}
	m := map[string]json.RawMessage{}
	if len(meta) > 0 && json.Unmarshal(meta, &m) != nil {
		return meta // not an object: pass the server's on untouched
	}
	if _, ok := m[metaSearchHint]; !ok && hint != "" {
		m[metaSearchHint], _ = json.Marshal(hint)
	}
	if _, ok := m[metaAlwaysLoad]; !ok && alwaysLoad {
		m[metaAlwaysLoad] = json.RawMessage("true")
	}
	if task != "" {
		m[metaTask], _ = json.Marshal(task)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return meta
	}
	return out
}

// searchHint joins category, keywords and queries with "; ", cut at a
// phrase boundary under maxSearchHint bytes.
func searchHint(c *ir.CatalogTool) string {
	if c == nil {
		return ""
	}
	var parts []string
	if c.Category != "" {
		parts = append(parts, c.Category)
	}
	if len(c.Keywords) > 0 {
		parts = append(parts, strings.Join(c.Keywords, ", "))
	}
	parts = append(parts, c.Queries[:min(len(c.Queries), hintQueryCount)]...)
	var b strings.Builder
	for _, p := range parts {
		if b.Len() > 0 && b.Len()+2+len(p) > maxSearchHint {
			break
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		if len(p) > maxSearchHint {
			continue
		}
		b.WriteString(p)
	}
	return b.String()
}
