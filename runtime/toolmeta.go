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
