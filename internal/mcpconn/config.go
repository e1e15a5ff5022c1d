// Package mcpconn owns the runtime's MCP client connections: it starts or
// dials servers over stdio, streamable HTTP, SSE, WebSocket and raw TCP with
// the go-sdk, shares each connection between sessions by reference count,
// watches its health and reconnects it when it dies.
//
// It is a leaf package: it knows nothing of registries or sessions, so it
// can be used by the runtime, by `toolgen lock` and by tests alike.
//
// Events (slog messages, each with a "server" attribute):
//
//	server.start           connected: transport, tools, protocol, latency_ms, attempt (0: first start)
//	server.fail            an attempt to connect failed (transport, reason with secrets redacted, attempt, retry_in_ms), or the server died (reconnecting)
//	server.health          colour changed: health, prev, reason
//	server.stop            torn down
//	server.tools_changed   the tool list changed (list_changed or a reconnect): tools
//	server.tool_schema     an input schema was normalised, or its tool skipped (also empty or duplicate names): tool, note
//	server.stdout_garbage  a stdio server wrote a non-JSON-RPC line, dropped: line
//	server.stderr          a stdio server's stderr line (debug level): line
//	server.ask_refused     a sampling or elicitation request over the limits: method, reason
package mcpconn

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Transports.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http" // streamable HTTP
	TransportSSE   = "sse"  // the 2024-11-05 HTTP+SSE transport
	TransportWS    = "ws"
	TransportTCP   = "tcp" // newline-delimited JSON-RPC over a TCP stream
)

// Defaults applied to a zero Config field.
const (
	// DefaultProtocolVersion is the newest revision offered; a server that
	// does not speak it negotiates down (server/discover, then initialize
	// with 2025-11-25, which older servers answer with theirs).
	DefaultProtocolVersion = "2026-07-28"
	DefaultStartupTimeout  = 10 * time.Second
	DefaultMaxMessageBytes = 64 << 20
	// A server's tool list past these caps is hostile or broken: it would
	// cost the host memory and every model call context (issue 21 item 10).
	DefaultMaxTools         = 10000
	DefaultMaxToolListBytes = 16 << 20
)

// Config describes one MCP server connection. Values are already resolved:
// env() lookups have been done by the caller.
type Config struct {
	Name      string // the server's name in the spec; used in events and errors
	Transport string // stdio | http | sse | ws | tcp

	// stdio
	Command string
	Args    []string
	Env     []string // KEY=VALUE added to the parent's environment
	Dir     string

	URL     string            // http, sse, ws
	Address string            // tcp: host:port
	Headers map[string]string // http, sse, ws

	// OAuth authorizes the requests of an http or sse server (the
	// OAuth client runtime/oauth links, or any go-sdk auth.OAuthHandler); nil: none.
	OAuth auth.OAuthHandler

	StartupTimeout  time.Duration // start + handshake + first tools/list; default 10s
	ProtocolVersion string        // newest revision to offer; default 2026-07-28
	HealthInterval  time.Duration // 0: no pings
	HealthTimeout   time.Duration // default HealthInterval/2
	MaxMessageBytes int           // largest JSON-RPC message accepted on stdio/tcp/ws; default 64 MiB
	MaxTools        int           // most tools a server may list; default 10,000
	MaxToolBytes    int           // most bytes its tool list may take (names, descriptions, schemas); default 16 MiB

	// Redact lists secret values (resolved env() values) that must never
	// appear in events or error messages; each is replaced by "[redacted]"
	// (internal/redact's rule: values under 8 bytes are left as they are).
	Redact []string

	Logger *slog.Logger // events; nil: the Manager's logger

	// Sampling and Elicitation say who answers the server's
	// sampling/createMessage and elicitation/create: AnswerHost (""), the
	// host that made the call; AnswerModel (sampling), the calling agent's
	// model through the call's Caller; or AnswerDeny. A capability nobody
	// can answer is not declared.
	Sampling    string
	Elicitation string
}

// key is the identity two Acquires must share to share a connection:
// everything that changes what is started or dialled, nothing that only
// tunes timing or logging (those come from the Acquire that started it).
func (c *Config) key() string {
	headers := make([]string, 0, len(c.Headers))
	for k, v := range c.Headers {
		headers = append(headers, k+"\x00"+v)
	}
	slices.Sort(headers)
	b, _ := json.Marshal([]any{c.Name, c.Transport, c.Command, c.Args, c.Env, c.Dir,
		c.URL, c.Address, headers, c.protocolVersion(), c.Sampling, c.Elicitation})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (c *Config) protocolVersion() string {
	if c.ProtocolVersion == "" {
		return DefaultProtocolVersion
	}
	return c.ProtocolVersion
}

func (c *Config) startupTimeout() time.Duration {
	if c.StartupTimeout <= 0 {
		return DefaultStartupTimeout
	}
	return c.StartupTimeout
}

func (c *Config) healthTimeout() time.Duration {
	if c.HealthTimeout > 0 {
		return c.HealthTimeout
	}
	return c.HealthInterval / 2
}

func (c *Config) maxMessageBytes() int {
	if c.MaxMessageBytes <= 0 {
		return DefaultMaxMessageBytes
	}
	return c.MaxMessageBytes
}

func (c *Config) maxTools() int {
	if c.MaxTools <= 0 {
		return DefaultMaxTools
	}
	return c.MaxTools
}

func (c *Config) maxToolBytes() int {
	if c.MaxToolBytes <= 0 {
		return DefaultMaxToolListBytes
	}
	return c.MaxToolBytes
}

func (c *Config) validate() error {
	if c.Name == "" {
		return fmt.Errorf("mcpconn: server without a name")
	}
	need := func(field, v string) error {
		if v == "" {
			return fmt.Errorf("server %q: transport %q needs %s", c.Name, c.Transport, field)
		}
		return nil
	}
	switch c.Transport {
	case TransportStdio, "":
		return need("command", c.Command)
	case TransportHTTP, TransportSSE, TransportWS:
		return need("url", c.URL)
	case TransportTCP:
		return need("address", c.Address)
	}
	return fmt.Errorf("server %q: unknown transport %q (want stdio, http, sse, ws or tcp)", c.Name, c.Transport)
}
