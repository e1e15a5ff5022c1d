package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/internal/oauthlink"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Upstream is one live MCP server connection as a session sees it. The
// implementation (internal/mcpconn, adapted below) shares and
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

// The upstream types are internal/mcpconn's, the one definition.
type (
	UpstreamTool   = mcpconn.Tool
	UpstreamResult = mcpconn.Result
	Health         = mcpconn.Health // green, yellow or red
	// HostNeeds are the host capabilities an upstream server lists a tool
	// only to (NeedsSampling, NeedsElicitation): a host without them
	// cannot use it.
	HostNeeds = mcpconn.Needs
)

const (
	HealthGreen  = mcpconn.HealthGreen
	HealthYellow = mcpconn.HealthYellow
	HealthRed    = mcpconn.HealthRed

	NeedsSampling    = mcpconn.NeedsSampling
	NeedsElicitation = mcpconn.NeedsElicitation
)

// mcpConnector is a Host's Connector: connections from its Manager. Their
// events go to log, the opening session's logger (nil: the Manager's).
type mcpConnector struct {
	m   *mcpconn.Manager
	log *slog.Logger

	tokens store.Store // nil: OAuth logins in the per-user files
}

func (c mcpConnector) Acquire(ctx context.Context, srv *decl.Server, getenv func(string) (string, bool)) (Upstream, error) {
	cfg, err := serverConfig(srv, getenv, c.log, c.tokens)
	if err != nil {
		return nil, err
	}
	cfg.Logger = c.log
	// A server that does not come up now is kept and retried in the
	// background: the session shows it red and learns of it coming up
	// through OnToolsChanged.
	conn, err := c.m.AcquireRetrying(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &mcpUpstream{c: conn}, nil
}

// ServerConfig turns a registry server into an mcpconn.Config, reading its
// env() parts now. A variable that is not set is an error naming the server
// and the variable; every value read is marked for redaction, so secrets
// never reach events or error messages.
func ServerConfig(srv *decl.Server, getenv func(string) (string, bool)) (mcpconn.Config, error) {
	return serverConfig(srv, getenv, nil, nil)
}

// serverConfig is ServerConfig with the logger OAuth events go to (nil:
// discarded) and the shared store OAuth logins are kept in (nil: the
// per-user files).
func serverConfig(srv *decl.Server, getenv func(string) (string, bool), log *slog.Logger, tokens store.Store) (mcpconn.Config, error) {
	cfg := mcpconn.Config{
		Name:            srv.Name,
		Transport:       srv.Transport,
		Command:         srv.Command,
		Args:            srv.Args,
		Address:         srv.Address,
		StartupTimeout:  srv.StartupTimeout,
		ProtocolVersion: srv.ProtocolVersion,
		HealthInterval:  srv.HealthInterval,
		HealthTimeout:   srv.HealthTimeout,
		Sampling:        srv.Sampling,
		Elicitation:     srv.Elicitation,
	}
	resolve := func(what string, v decl.Value) (string, error) {
		s, err := v.Resolve(getenv)
		if err != nil {
			return "", fmt.Errorf("server %q: %s: %w", srv.Name, what, err)
		}
		cfg.Redact = append(cfg.Redact, v.FromEnv(getenv)...)
		return s, nil
	}
	for _, kv := range srv.Env {
		val, err := resolve("env "+kv.Key, kv.Value)
		if err != nil {
			return mcpconn.Config{}, err
		}
		cfg.Env = append(cfg.Env, kv.Key+"="+val)
	}
	if len(srv.URL) > 0 {
		u, err := resolve("url", srv.URL)
		if err != nil {
			return mcpconn.Config{}, err
		}
		cfg.URL = u
	}
	if err := serverOAuth(srv, &cfg, getenv, log, tokens); err != nil {
		return mcpconn.Config{}, err
	}
	if len(srv.Headers) > 0 {
		cfg.Headers = make(map[string]string, len(srv.Headers))
		for _, kv := range srv.Headers {
			val, err := resolve("header "+kv.Key, kv.Value)
			if err != nil {
				return mcpconn.Config{}, err
			}
			cfg.Headers[kv.Key] = val
		}
	}
	return cfg, nil
}

// mcpUpstream adapts one mcpconn handle to Upstream.
type mcpUpstream struct{ c *mcpconn.Conn }

func (u *mcpUpstream) Tools() []UpstreamTool { return u.c.Tools() }

func (u *mcpUpstream) Call(ctx context.Context, tool string, args json.RawMessage) (UpstreamResult, error) {
	// The upstream span's trace context, for servers that continue it.
	return u.c.CallMeta(ctx, tool, args, telemetry.TraceMeta(ctx))
}

func (u *mcpUpstream) Instructions() string { return u.c.Instructions() }

func (u *mcpUpstream) Health() Health { return u.c.Health() }

func (u *mcpUpstream) Err() error { return u.c.Err() }

func (u *mcpUpstream) OnFail(fn func(error)) (cancel func()) { return u.c.OnFail(fn) }

func (u *mcpUpstream) OnToolsChanged(fn func()) (cancel func()) { return u.c.OnToolsChanged(fn) }

func (u *mcpUpstream) Release() { u.c.Release() }

// serverOAuth gives an http or sse server with an auth block its OAuth
// handler: the process's one for that server, using the tokens `AGENT
// login SERVER` stored (never starting a login itself). Without a stored
// login, or with one revoked, connecting fails with "run: AGENT login
// SERVER" and the server stays red, retried in the background, until a
// login in another process stores a token. With a shared store the login
// is the fleet's, sealed there, and one replica's refresh serves all.
func serverOAuth(srv *decl.Server, cfg *mcpconn.Config, getenv func(string) (string, bool), log *slog.Logger, tokens store.Store) error {
	if srv.Auth == nil {
		return nil
	}
	c, ok := oauthlink.Linked()
	if !ok {
		return oauthlink.NotLinked(srv.Name)
	}
	// log: auth.refresh and auth.refresh_failed, with the server's other events.
	h, secrets, err := c.Handler(oauthlink.Server{Decl: srv, URL: cfg.URL, Getenv: getenv, Log: log, Shared: tokens})
	if err != nil {
		return err
	}
	cfg.Redact = append(cfg.Redact, secrets...)
	cfg.OAuth = h
	return nil
}
