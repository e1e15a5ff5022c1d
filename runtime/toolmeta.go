package runtime

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// declaredMeta sets a pool tool's title, annotations, output schema and
// _meta from its Registry entry.
func declaredMeta(pt *PoolTool, t *decl.Tool) {
	pt.Title, pt.OutputSchema = t.Title, t.OutputSchema
	pt.Annotations = mcpAnnotations(t.Annotations)
	if len(t.Meta) > 0 {
		var m mcp.Meta
		if json.Unmarshal(t.Meta, &m) == nil {
			pt.Meta = m
		}
	}
}

// mcpAnnotations is the MCP form of declared annotations; a hint left
// unsaid stays unsaid where MCP can say so (destructive, open world) and
// is false where it cannot (read only, idempotent).
func mcpAnnotations(a *decl.ToolAnnotations) *mcp.ToolAnnotations {
	if a == nil {
		return nil
	}
	m := &mcp.ToolAnnotations{DestructiveHint: a.Destructive, OpenWorldHint: a.OpenWorld}
	if a.ReadOnly != nil {
		m.ReadOnlyHint = *a.ReadOnly
	}
	if a.Idempotent != nil {
		m.IdempotentHint = *a.Idempotent
	}
	return m
}

// withHints adds to a live server tool's _meta the host hints toolgen
// generated for it (anthropic/searchHint from its keywords and stored
// enrichment), where the server set none of its own.
func withHints(live mcp.Meta, locked *decl.Tool) mcp.Meta {
	if locked == nil || len(locked.Meta) == 0 {
		return live
	}
	var gen mcp.Meta
	if json.Unmarshal(locked.Meta, &gen) != nil {
		return live
	}
	hint, ok := gen["anthropic/searchHint"]
	if !ok {
		return live
	}
	if _, set := live["anthropic/searchHint"]; set {
		return live
	}
	out := make(mcp.Meta, len(live)+1)
	for k, v := range live {
		out[k] = v
	}
	out["anthropic/searchHint"] = hint
	return out
}
