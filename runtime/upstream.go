package runtime

import (
	"context"
	"encoding/json"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Upstream is one live MCP server connection as a session sees it. The
// implementation (internal/mcpconn, adapted in mcp_connector.go) shares and
// reference-counts connections across sessions; Release drops this
// session's reference.
type Upstream interface {
	// Tools is the server's current tools/list (all pages), unfiltered.
	Tools() []UpstreamTool
	// Call runs tools/call. A tool-level failure is IsError in the result,
	// not an error; err is for transport failures and cancellation.
	Call(ctx context.Context, tool string, args json.RawMessage) (UpstreamResult, error)
	// Instructions from the initialize handshake.
	Instructions() string
	Health() Health
	// OnToolsChanged registers fn to run after the server's tool list
	// changed (tools/list_changed); the returned func unregisters it.
	OnToolsChanged(fn func()) (cancel func())
	Release()
}

// downReporter is an Upstream that can say why it is down; Session.Servers
// shows the reason. Optional, so that simple Upstreams need not implement it.
type downReporter interface {
	Err() error // nil while connected
}

// failNotifier is an Upstream that reports a server's death as it happens,
// so that a session's logger hears of it even when a reconnect follows at
// once. Optional, like downReporter.
type failNotifier interface {
	OnFail(fn func(error)) (cancel func())
}

// Connector acquires Upstreams for servers of a Registry.
type Connector interface {
	Acquire(ctx context.Context, srv *decl.Server, getenv func(string) (string, bool)) (Upstream, error)
}

// UpstreamTool is one tool of a server's tools/list: name, title,
// description, input and output schema, annotations and _meta.
type UpstreamTool = mcpconn.Tool

// UpstreamResult is a tools/call result as the server sent it.
type UpstreamResult = mcpconn.Result

// Health of a server connection, as health checks see it.
type Health string

const (
	HealthGreen  Health = "green"  // last ping answered in time
	HealthYellow Health = "yellow" // last ping slow or one missed; reconnecting
	HealthRed    Health = "red"    // down: failed to start, died, or pings keep failing
)
