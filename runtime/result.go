package runtime

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/tools"
)

// ToolKind says which provider runs a tool (decl.KindGo, decl.KindMCP …).
type ToolKind = decl.ToolKind

// Result is what every tool call returns, success or failure.
type Result struct {
	OK bool
	// Result is the text a model reads: text blocks joined, other blocks
	// as their JSON.
	Result string
	Error  string
	// Rich is the whole result when it is more than one text block: an MCP
	// server's images, audio, resources, structured content and _meta, as
	// the server sent them (secrets scrubbed). nil for plain text. A tool's
	// own failure (isError) keeps its blocks here too.
	Rich      *Rich
	Latency   time.Duration
	Kind      ToolKind
	Namespace string
	// Internal: the call broke inside the agent (a tool panicked), so its
	// error is the agent's failure, not the tool's answer. A task reports
	// such a call failed (runtime/tasks); a plain call still gets an error
	// result.
	Internal bool
}

// Rich is a tool result as MCP content: blocks (text, image, audio,
// embedded resource, resource link), structuredContent, isError and _meta.
// A Go tool may return one to answer with more than text.
type Rich = mcpconn.Result

type resultJSON struct {
	OK        bool     `json:"ok"`
	Result    string   `json:"result,omitempty"`
	Error     string   `json:"error,omitempty"`
	Latency   float64  `json:"latency"` // milliseconds
	Kind      ToolKind `json:"kind,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
	// A rich result's blocks, structured content, error flag and _meta,
	// in their MCP form.
	*richJSON
}

type richJSON struct {
	Content    []mcp.Content   `json:"content,omitempty"`
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Meta       mcp.Meta        `json:"_meta,omitempty"`
}

// MarshalJSON writes {ok, result, error, latency (ms), kind, namespace},
// and a rich result's content, structuredContent, isError and _meta.
func (r Result) MarshalJSON() ([]byte, error) {
	j := resultJSON{r.OK, r.Result, r.Error, float64(r.Latency.Microseconds()) / 1000, r.Kind, r.Namespace, nil}
	if r.Rich != nil {
		j.richJSON = &richJSON{r.Rich.Content, r.Rich.Structured, r.Rich.IsError, r.Rich.Meta}
	}
	return json.Marshal(j)
}

func (r *Result) UnmarshalJSON(b []byte) error {
	var j struct {
		OK        bool     `json:"ok"`
		Result    string   `json:"result"`
		Error     string   `json:"error"`
		Latency   float64  `json:"latency"`
		Kind      ToolKind `json:"kind"`
		Namespace string   `json:"namespace"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Result{OK: j.OK, Result: j.Result, Error: j.Error, Latency: time.Duration(j.Latency * float64(time.Millisecond)),
		Kind: j.Kind, Namespace: j.Namespace}
	// go-sdk's CallToolResult knows how to decode content blocks.
	var rich mcp.CallToolResult
	if json.Unmarshal(b, &rich) == nil && (len(rich.Content) > 0 || rich.StructuredContent != nil || rich.Meta != nil) {
		rr := Rich{Content: rich.Content, IsError: rich.IsError, Meta: rich.Meta}
		if rich.StructuredContent != nil {
			rr.Structured, _ = json.Marshal(rich.StructuredContent)
		}
		r.Rich = &rr
	}
	return nil
}

// ToolInfo is one tool as a host sees it.
type ToolInfo struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	Kind        ToolKind
	Namespace   string
	// What tools/list shows besides: a display title, MCP annotations
	// (readOnlyHint …), the schema of structured results and _meta. A
	// server tool's pass on unchanged.
	Title        string
	Annotations  *mcp.ToolAnnotations
	OutputSchema json.RawMessage
	Meta         mcp.Meta
	// Needs are what a host must declare to be shown the tool: an
	// upstream server lists it only to clients that can sample or elicit.
	Needs HostNeeds
}

// ServerStatus is one MCP server as a session sees it.
type ServerStatus struct {
	Name   string
	Health Health
	Tools  int
	Error  string
}

// FindHit is one tool_find result.
type FindHit = tools.FindHit
