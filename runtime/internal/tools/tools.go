// Package tools holds the runtime's own tool families: agent (sub-agents,
// spawn, handoff, final report, task status, batch), discovery (tool_find,
// describe, load, active), meta (the mcp_* tools) and output (output_read).
//
// Each tool decodes an args struct whose input schema is derived from that
// struct (so schema and decoder cannot drift), and its handler holds only
// the one component it needs, given as a small interface (a Catalog, a
// Spill reader, a Spawner …), never the session.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Handler answers one call. args are valid JSON.
type Handler func(ctx context.Context, args json.RawMessage) (string, error)

// Tool is one runtime tool: what the model sees and the handler that
// answers, with the pipeline flags the tool needs.
type Tool struct {
	Name        string
	Description string
	Kind        decl.ToolKind
	Namespace   string
	Schema      json.RawMessage
	Run         Handler

	Linked bool // the call ends with the agent context (it starts children)
	// NoCap: never spilled or cut at response_max_bytes. output_read is
	// already paged; the discovery and browse tools answer with what the
	// model needs to call tools (names, schemas), which a spill handle or a
	// cut would hide, and each is bounded by its own limit or paging.
	NoCap    bool
	NoBudget bool // its inner calls are counted one by one (batch)
}

// schemaOf derives the input schema of args struct T once. Properties
// without omitempty are required; a jsonschema tag is the description;
// edit adds what tags cannot say (enums, minimums).
//
// The derived schema does not forbid extra properties: the runtime never
// rejected them, and a client that validates against the schema must not
// start to.
func schemaOf[T any](edit func(*jsonschema.Schema)) json.RawMessage {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Type: "object"},
		reflect.TypeFor[map[string]any]():  {Type: "object"},
	}})
	if err != nil {
		panic(err) // the args structs are this package's own: a bug, caught by its tests
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{} // "properties":{} as MCP clients expect
	}
	openObjects(s)
	if edit != nil {
		edit(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// openObjects drops the additionalProperties:false that For puts on
// every struct (see schemaOf), and the null For allows for a slice: no
// handler takes null for a list (an empty list is an error).
func openObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Type == "object" && s.Properties != nil {
		s.AdditionalProperties = nil
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		openObjects(p)
	}
	openObjects(s.Items)
}

// noArgs is the schema of a tool without arguments.
var noArgs = schemaOf[struct{}](nil)

func enum(values ...string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

func minimum(n float64) *float64 { return &n }

// decode unmarshals tool arguments with an error the model can act on.
func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func marshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
