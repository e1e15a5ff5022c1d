package tools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Catalog is what the discovery tools search and change: the tools one
// agent may load, and the set it loaded.
type Catalog interface {
	// Find ranks the loadable tools for a query, best first; hint is set
	// when nothing matched the query's words and the hits are a fallback.
	// ctx is the call's: a tool its host cannot use is left out.
	Find(ctx context.Context, query string, limit int) (hits []FindHit, hint string)
	// Describe is one tool the agent may know about (loadable or callable).
	Describe(name string) (Description, error)
	// Load activates tools by name, all or none; a name that needs no
	// loading (one of the runtime's own tools) is skipped, with why. A
	// tool the call's host cannot use is refused.
	Load(ctx context.Context, names []string) (Loaded, error)
	// Active lists the loaded tools.
	Active() []ActiveTool
}

// FindHit is one tool_find result.
type FindHit struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Score       float64 `json:"score"`
	Active      bool    `json:"active"`
	// Skill hits are one of the agent's skills, not a tool: a host reads
	// it at URI, the agent's own loop loads it with skill_load.
	Kind string `json:"kind,omitempty"` // "skill", or "" for a tool
	URI  string `json:"uri,omitempty"`
}

// Description is what tool_describe shows of one tool.
type Description struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	Active      bool
	Category    string
	Keywords    []string
}

// Loaded is what tool_load did.
type Loaded struct {
	Tools         []LoadedTool // newly active, in the order asked
	AlreadyActive []string
	Skipped       []SkippedTool // asked for, but nothing to load
	ActiveCount   int
}

// SkippedTool is a name tool_load did not load, and why: the model reads
// the reason and calls the tool directly.
type SkippedTool struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// LoadedTool is one tool tool_load activated.
type LoadedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// ActiveTool is one loaded tool.
type ActiveTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type findArgs struct {
	Query string `json:"query" jsonschema:"What you want to do: the action and the object, in plain words."`
	Limit int    `json:"limit,omitempty" jsonschema:"Maximum results (default 10)."`
}

var findSchema = schemaOf[findArgs](func(s *jsonschema.Schema) {
	s.Properties["limit"].Minimum = minimum(1)
})

type describeArgs struct {
	Name string `json:"name"`
}

var describeSchema = schemaOf[describeArgs](nil)

type loadArgs struct {
	Names []string `json:"names"`
}

var loadSchema = schemaOf[loadArgs](func(s *jsonschema.Schema) {
	s.Properties["names"].MinItems = new(1)
})

// Discovery is the discovery family over c: tool_find, tool_describe,
// tool_load and tool_active.
func Discovery(c Catalog) []Tool {
	return []Tool{
		{
			Name:        decl.ToolFind,
			Description: "Search the tools you can load; marks the active ones. Describe the action and the object in plain words (\"delete a calendar event\", \"remember a fact about a person\").",
			Kind:        decl.KindDiscovery, Namespace: "discovery", Schema: findSchema, NoCap: true,
			Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				var a findArgs
				if err := decode(args, &a); err != nil {
					return "", err
				}
				if a.Query == "" {
					return "", errors.New("query is empty")
				}
				hits, hint := c.Find(ctx, a.Query, a.Limit)
				if hits == nil {
					hits = []FindHit{}
				}
				res := map[string]any{"query": a.Query, "results": hits, "count": len(hits)}
				if hint != "" {
					res["hint"] = hint
				}
				return marshal(res)
			},
		},
		{
			Name:        decl.ToolDescribe,
			Description: "Describe one tool: description, input schema, category, keywords, active status.",
			Kind:        decl.KindDiscovery, Namespace: "discovery", Schema: describeSchema, NoCap: true,
			Run: func(_ context.Context, args json.RawMessage) (string, error) {
				var a describeArgs
				if err := decode(args, &a); err != nil {
					return "", err
				}
				t, err := c.Describe(a.Name)
				if err != nil {
					return "", err
				}
				d := map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.InputSchema, "active": t.Active}
				if t.Category != "" {
					d["category"] = t.Category
				}
				if len(t.Keywords) > 0 {
					d["keywords"] = t.Keywords
				}
				return marshal(d)
			},
		},
		{
			Name:        decl.ToolLoad,
			Description: "Activate tools by name (all or none); returns their schemas. Tools you already have need no loading.",
			Kind:        decl.KindDiscovery, Namespace: "discovery", Schema: loadSchema, NoCap: true,
			Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				var a loadArgs
				if err := decode(args, &a); err != nil {
					return "", err
				}
				if len(a.Names) == 0 {
					return "", errors.New("names is empty")
				}
				l, err := c.Load(ctx, a.Names)
				if err != nil {
					return "", err
				}
				if l.Tools == nil {
					l.Tools = []LoadedTool{}
				}
				if l.AlreadyActive == nil {
					l.AlreadyActive = []string{} // [] rather than null when nothing was active
				}
				res := map[string]any{
					"loaded": l.Tools, "already_active": l.AlreadyActive, "active_count": l.ActiveCount,
					"note": "Loaded tools are callable by name, or through " + decl.ToolMCPCall + " with {tool, args}.",
				}
				if len(l.Skipped) > 0 {
					res["skipped"] = l.Skipped
				}
				return marshal(res)
			},
		},
		{
			Name: decl.ToolActive, Description: "List the tools loaded so far.",
			Kind: decl.KindDiscovery, Namespace: "discovery", Schema: noArgs, NoCap: true,
			Run: func(context.Context, json.RawMessage) (string, error) {
				out := c.Active()
				if out == nil {
					out = []ActiveTool{}
				}
				res := map[string]any{"tools": out, "count": len(out)}
				if len(out) == 0 {
					res["message"] = "No tools are active. Use " + decl.ToolFind + " and " + decl.ToolLoad + " to activate some."
				}
				return marshal(res)
			},
		},
	}
}
