package runtime

import (
	"encoding/json"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/tools"
)

// ToolKind says which provider runs a tool (decl.KindGo, decl.KindMCP …).
type ToolKind = decl.ToolKind

// Result is what every tool call returns, success or failure.
type Result struct {
	OK        bool
	Result    string
	Error     string
	Latency   time.Duration
	Kind      ToolKind
	Namespace string
}

type resultJSON struct {
	OK        bool     `json:"ok"`
	Result    string   `json:"result,omitempty"`
	Error     string   `json:"error,omitempty"`
	Latency   float64  `json:"latency"` // milliseconds
	Kind      ToolKind `json:"kind,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
}

// MarshalJSON writes {ok, result, error, latency (ms), kind, namespace}.
func (r Result) MarshalJSON() ([]byte, error) {
	return json.Marshal(resultJSON{r.OK, r.Result, r.Error, float64(r.Latency.Microseconds()) / 1000, r.Kind, r.Namespace})
}

func (r *Result) UnmarshalJSON(b []byte) error {
	var j resultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Result{j.OK, j.Result, j.Error, time.Duration(j.Latency * float64(time.Millisecond)), j.Kind, j.Namespace}
	return nil
}

// ToolInfo is one tool as a host sees it.
type ToolInfo struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	Kind        ToolKind
	Namespace   string
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
