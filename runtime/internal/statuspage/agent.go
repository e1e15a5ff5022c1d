package statuspage

import (
	"context"
	"encoding/json"
)

// Agent is what the page needs from the running agent binary: a view of
// its session and the one action the page takes (Switch). The runtime's
// Session satisfies it through a thin adapter; this package never imports
// the runtime, so the runtime may import it.
type Agent interface {
	// Status is the current agent, the agents it may switch to, the
	// servers its context connected and the tools it can call now.
	Status() Status
	// Find ranks the agent's tools for a query as tool_find does.
	Find(query string, limit int) []Hit
	// Switch makes another agent current (Session.Switch: in-flight calls
	// get up to 5 s, then the old context is torn down).
	Switch(ctx context.Context, agent string) error
	// Outputs lists the outputs the current agent context spilled to disk.
	Outputs() []Output
	// ReadOutput pages a spilled output: up to limit bytes from offset,
	// never splitting a UTF-8 sequence (output_read's paging).
	ReadOutput(handle string, offset, limit int) (Page, error)
}

// Status is the body of GET /api/status.
type Status struct {
	Agent   string      `json:"agent"`
	Agents  []AgentInfo `json:"agents"`
	Servers []Server    `json:"servers"`
	Tools   []Tool      `json:"tools"`
	Skills  []Skill     `json:"skills,omitempty"`
	Fleet   *Fleet      `json:"fleet,omitempty"` // with a shared store only
}

// Skill is one skill the current agent may use, with why it has it.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	URI         string `json:"uri"` // of its SKILL.md
	Reason      string `json:"reason"`
}

// AgentInfo is one agent the binary can run.
type AgentInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Health colours of a server, as health checks see it.
const (
	Green  = "green"  // up; the last ping answered in time
	Yellow = "yellow" // up, but the last ping was slow or missed
	Red    = "red"    // down: failed to start, died, or pings keep failing
)

// Server is one MCP server of the current agent context.
type Server struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // stdio | http | sse | ws | tcp
	Health    string `json:"health"`    // Green, Yellow or Red
	Tools     int    `json:"tools"`
	Error     string `json:"error"` // why it is not green; "" when it is
}

// Tool is one tool the current agent can call.
type Tool struct {
	Name        string          `json:"name"`
	Kind        string          `json:"kind"`
	Namespace   string          `json:"namespace"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Reason      string          `json:"reason"` // why the agent has it, as explain says
}

// Hit is one ranked tool of GET /api/find.
type Hit struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	Active      bool    `json:"active"` // callable now (not only loadable)
}

// Output is one spilled output.
type Output struct {
	Handle string `json:"handle"`
	Bytes  int    `json:"bytes"`
}

// Page is one page of a spilled output, in output_read's shape.
type Page struct {
	Handle     string `json:"handle"`
	Offset     int    `json:"offset"`
	Bytes      int    `json:"bytes"`
	TotalBytes int    `json:"total_bytes"`
	NextOffset int    `json:"next_offset"`
	EOF        bool   `json:"eof"`
	Content    string `json:"content"`
}
