package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
)

// Servers is what the meta tools reach: the MCP servers in the agent's meta
// scope.
type Servers interface {
	// Tools lists a server's live tools that the meta scope permits.
	Tools(ctx context.Context, server string) ([]mcpconn.Tool, error)
	// Call calls a server tool inside the meta scope, or a loaded tool by
	// its exposed name when server is empty.
	Call(ctx context.Context, server, tool string, args json.RawMessage) (string, error)
}

type mcpListArgs struct {
	Server string `json:"server"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

var mcpListSchema = schemaOf[mcpListArgs](func(s *jsonschema.Schema) {
	s.Properties["offset"].Minimum = minimum(0)
	s.Properties["limit"].Minimum = minimum(1)
})

type mcpSchemaArgs struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
}

var mcpSchemaSchema = schemaOf[mcpSchemaArgs](nil)

type mcpCallArgs struct {
	Server string          `json:"server,omitempty" jsonschema:"Server name; omit to call a loaded tool by its exposed name."`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`
}

var mcpCallSchema = schemaOf[mcpCallArgs](nil)

// MetaBrowse is mcp_list_tools and mcp_get_tool_schema over the servers
// named in scope (sorted).
func MetaBrowse(s Servers, scope []string) []Tool {
	in := " Servers: " + strings.Join(scope, ", ") + "."
	return []Tool{
		{
			Name: decl.ToolMCPList, Description: "List the tools of an MCP server (paged)." + in,
			Kind: decl.KindMeta, Namespace: "mcp", Schema: mcpListSchema, NoCap: true,
			Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				var a mcpListArgs
				if err := decode(args, &a); err != nil {
					return "", err
				}
				tools, err := s.Tools(ctx, a.Server)
				if err != nil {
					return "", err
				}
				if a.Limit <= 0 {
					a.Limit = 50
				}
				a.Offset = min(max(a.Offset, 0), len(tools))
				end := a.Offset + min(a.Limit, len(tools)-a.Offset) // no a.Offset+a.Limit: it overflows for a huge limit
				type listed struct {
					Name        string `json:"name"`
					Description string `json:"description,omitempty"`
				}
				page := []listed{}
				for _, t := range tools[a.Offset:end] {
					page = append(page, listed{t.Name, t.Description})
				}
				res := map[string]any{"server": a.Server, "tools": page, "total": len(tools), "offset": a.Offset}
				if end < len(tools) {
					res["next_offset"] = end
				}
				return marshal(res)
			},
		},
		{
			Name: decl.ToolMCPSchema, Description: "Get the input schema of one MCP server tool." + in,
			Kind: decl.KindMeta, Namespace: "mcp", Schema: mcpSchemaSchema, NoCap: true,
			Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				var a mcpSchemaArgs
				if err := decode(args, &a); err != nil {
					return "", err
				}
				tools, err := s.Tools(ctx, a.Server)
				if err != nil {
					return "", err
				}
				for _, t := range tools {
					if t.Name == a.Tool {
						return marshal(map[string]any{"server": a.Server, "name": t.Name, "description": t.Description, "input_schema": pipeline.NormalizeSchema(t.InputSchema)})
					}
				}
				return "", fmt.Errorf("tool %q not found on server %q (or not allowed); use %s", a.Tool, a.Server, decl.ToolMCPList)
			},
		},
	}
}

// MetaCall is mcp_call_tool.
func MetaCall(s Servers) Tool {
	return Tool{
		Name: decl.ToolMCPCall, Description: "Call an MCP server tool, or a loaded tool by name.",
		Kind: decl.KindMeta, Namespace: "mcp", Schema: mcpCallSchema,
		Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			var a mcpCallArgs
			if err := decode(args, &a); err != nil {
				return "", err
			}
			if len(a.Args) == 0 || string(a.Args) == "null" {
				a.Args = json.RawMessage(`{}`)
			}
			return s.Call(ctx, a.Server, a.Tool, a.Args)
		},
	}
}
