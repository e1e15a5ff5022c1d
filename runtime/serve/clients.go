package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OwnedSession is a session the server opened and must close.
type OwnedSession interface {
	Session
	Close() error
}

// OpenFunc opens a new session for one MCP client.
type OpenFunc func(ctx context.Context) (OwnedSession, error)

// clientIdle closes an MCP session (and its runtime session) after this
// long without a request from its client.
const clientIdle = 2 * time.Hour

// Clients serves streamable HTTP with one session per MCP client, so that
// one client's tool_load, memory and queue waiters are never another's:
// the session of an agent context is the unit of isolation. A client's
// session is opened at its initialize and closed when its MCP session ends
// (DELETE, idle timeout, shutdown) or its initialize fails.
type Clients struct {
	open OpenFunc
	opts Options

	// versions answers go-sdk's per-request protocol version lookups; it
	// never serves a session.
	versions *mcp.Server

	lean     *leanHTTP // a session's tools/call without go-sdk's machinery
	noLean26 bool      // tests: a 2026-07-28 host's calls all go to go-sdk

	releasing sync.WaitGroup // releases under way (release): Close waits for them

	mu     sync.Mutex
	live   map[*Server]*clientSession
	closed bool

	// shared serves the hosts of the stateless revision (2026-07-28):
	// their requests carry no session, so they share one agent session,
	// opened at the first such request and closed with Clients.
	sharedMu sync.Mutex
	shared   *Server
	sharedS  OwnedSession
}

type clientSession struct{ sess OwnedSession }

// NewClients serves sessions made by open; opts configure each one's Server.
func NewClients(open OpenFunc, opts Options) *Clients {
	if opts.Logger == nil {
		opts.Logger = discardLogger
	}
	versions := mcp.NewServer(&mcp.Implementation{Name: "versions", Version: "0"}, &mcp.ServerOptions{
		SupportedProtocolVersions: ProtocolVersions,
		Logger:                    discardLogger,
	})
	opts.rounds = newRoundsFor(opts) // a retry may reach another client's server
	return &Clients{open: open, opts: opts, versions: versions, live: map[*Server]*clientSession{},
		lean: newLeanHTTP(opts.MaxMessageBytes, clientIdle)}
}

// Len is the number of client sessions open.
func (c *Clients) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.live)
}

// Handler is the streamable HTTP endpoint, guarded against DNS rebinding.
func (c *Clients) Handler() http.Handler {
	if c.opts.Stateless {
		return c.statelessHandler()
	}
	h := mcp.NewStreamableHTTPHandler(c.serverFor, &mcp.StreamableHTTPOptions{
		Logger:              quietLogger(c.opts.Logger),
		MaxRequestBodyBytes: int64(c.opts.MaxMessageBytes), // as in Server.Handler
		// No SessionTimeout: the lean path keeps each session's idle
		// timer (clientIdle), which go-sdk's would not see refreshed.
	})
	var stateless http.Handler = mcp.NewStreamableHTTPHandler(c.sharedFor, &mcp.StreamableHTTPOptions{
		Logger:              quietLogger(c.opts.Logger),
		MaxRequestBodyBytes: int64(c.opts.MaxMessageBytes),
		Stateless:           true,
	})
	if !c.noLean26 {
		// A 2026-07-28 host's tools/call without it (leanhttp26.go).
		stateless = &leanHTTP26{c: c, next: stateless, max: c.lean.max}
	}
	sse := mcp.NewSSEHandler(c.sseServer, nil)
	streamable := byRevision(c.sessions(h), stateless)
	return rebindingGuard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == ssePath {
			sse.ServeHTTP(w, r)
			return
		}
		streamable.ServeHTTP(w, r)
	}))
}

// ssePath serves the deprecated HTTP+SSE transport (2024-11-05), for
// clients that speak nothing newer: GET opens a client's session, POSTs
// to the endpoint it announces carry its requests.
const ssePath = "/sse"

// sseServer is the SSE handler's getServer, asked once per GET: a new
// client's server, released when its session ends.
func (c *Clients) sseServer(r *http.Request) *mcp.Server {
	srv, err := c.start(r, false)
	if err != nil {
		c.opts.Logger.Error("serve.client_open", "remote", r.RemoteAddr, "error", err)
		return nil
	}
	return srv.mcp
}

// sessions serves the revisions with a handshake: a session per client.
func (c *Clients) sessions(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") != "" {
			c.lean.serve(w, r, h) // a session's request (leanhttp.go)
			return
		}
		// Only an initialize POSTed without a session ID starts an MCP
		// session; a probe such as server/discover must not open one.
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" || !peekInitialize(r) {
			h.ServeHTTP(w, r)
			return
		}
		srv, err := c.start(r, true)
		if err != nil {
			c.opts.Logger.Error("serve.client_open", "remote", r.RemoteAddr, "error", err)
			http.Error(w, "cannot open an agent session: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), startedKey{}, srv)))
		if !hasSession(srv) {
			// The request did not establish a session (not an
			// initialize, or it failed): nothing will use srv.
			c.release(srv, "not initialized")
		}
	})
}

// sharedFor is the stateless handler's getServer: the shared server,
// opened on first use; nil (go-sdk answers 400) when it cannot open.
func (c *Clients) sharedFor(r *http.Request) *mcp.Server {
	if s := c.sharedServer(r); s != nil {
		return s.mcp
	}
	return nil
}

// sharedServer is the server of the stateless revision's hosts, opened on
// first use; nil when it cannot open or Clients is closed.
func (c *Clients) sharedServer(r *http.Request) *Server {
	c.sharedMu.Lock()
	defer c.sharedMu.Unlock()
	if c.shared != nil {
		return c.shared
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil
	}
	sess, err := c.open(context.WithoutCancel(r.Context()))
	if err != nil {
		c.opts.Logger.Error("serve.client_open", "remote", r.RemoteAddr, "error", err)
		return nil
	}
	c.shared, c.sharedS = newServer(sess, c.opts, nil), sess
	c.opts.Logger.Info("serve.client_open", "agent", sess.Agent(), "remote", r.RemoteAddr, "stateless", true)
	return c.shared
}

type startedKey struct{}

// peekInitialize reports whether the JSON-RPC body (one message or a
// batch) holds an initialize request, leaving the body readable.
func peekInitialize(r *http.Request) bool {
	body, ok := peekBody(r)
	if !ok {
		return false
	}
	type message struct {
		Method string `json:"method"`
	}
	var msgs []message
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		if json.Unmarshal(b, &msgs) != nil {
			return false
		}
	} else {
		var m message
		if json.Unmarshal(b, &m) != nil {
			return false
		}
		msgs = []message{m}
	}
	for _, m := range msgs {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}

// serverFor is go-sdk's getServer, asked on every request: the server
// started for this request, or one that only knows protocol versions.
func (c *Clients) serverFor(r *http.Request) *mcp.Server {
	if srv, ok := r.Context().Value(startedKey{}).(*Server); ok {
		return srv.mcp
	}
	return c.versions
}

// ListenAndServe is Server.ListenAndServe with a session per client.
func (c *Clients) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := listen(addr, ready, c.opts.Auth)
	if err != nil {
		return err
	}
	return c.Serve(ctx, ln)
}

// Serve is ListenAndServe on an open listener, which it closes. Every
// client session is closed when it returns.
func (c *Clients) Serve(ctx context.Context, ln net.Listener) error {
	defer c.Close()
	name := c.opts.Name
	if name == "" {
		name = "(per client)"
	}
	return serveHTTP(ctx, ln, mount(c.Handler(), c.opts.Beside), c.opts.Logger, name, c.closeSessions, c.opts.Beside, c.opts.Auth)
}

var errShuttingDown = errors.New("server shutting down")

// start opens the session of a new client; a streamable one's tools/call
// may take the lean path (leanhttp.go).
func (c *Clients) start(r *http.Request, streamable bool) (*Server, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, errShuttingDown
	}
	// The session outlives this request.
	sess, err := c.open(context.WithoutCancel(r.Context()))
	if err != nil {
		return nil, err
	}
	var userID string // go-sdk binds the session to the token's user
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		userID = ti.UserID
	}
	var srv *Server
	srv = newServer(sess, c.opts, func(ss *mcp.ServerSession) {
		if streamable {
			c.lean.add(ss, srv, userID)
		}
		go func() {
			ss.Wait()
			c.release(srv, "disconnected")
		}()
	})
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		srv.Close()
		sess.Close()
		return nil, errShuttingDown
	}
	c.live[srv] = &clientSession{sess: sess}
	n := len(c.live)
	c.mu.Unlock()
	c.opts.Logger.Info("serve.client_open", "agent", sess.Agent(), "remote", r.RemoteAddr, "clients", n)
	return srv, nil
}

// release closes one client's server and session; safe to call twice.
func (c *Clients) release(srv *Server, why string) {
	c.mu.Lock()
	if !c.closed && srv.deferRelease(func() { c.release(srv, why) }) {
		c.mu.Unlock() // a task still runs on it: released when it ends
		return
	}
	cl, ok := c.live[srv]
	delete(c.live, srv)
	n := len(c.live)
	if ok {
		c.releasing.Add(1) // under mu: a Close that no longer finds srv waits for this
	}
	c.mu.Unlock()
	if !ok {
		return
	}
	defer c.releasing.Done()
	srv.Close()
	if err := cl.sess.Close(); err != nil {
		c.opts.Logger.Warn("serve.client_close", "agent", cl.sess.Agent(), "error", err)
	}
	level := slog.LevelInfo
	if c.opts.Stateless {
		level = slog.LevelDebug // one per request: the tool call's own event says enough
	}
	c.opts.Logger.Log(context.Background(), level, "serve.client_close", "agent", cl.sess.Agent(), "reason", why, "clients", n)
}

// Sessions are the open client sessions, in no order.
func (c *Clients) Sessions() []OwnedSession {
	c.mu.Lock()
	out := make([]OwnedSession, 0, len(c.live)+1)
	for _, cl := range c.live {
		out = append(out, cl.sess)
	}
	c.mu.Unlock()
	c.sharedMu.Lock() // after mu, never inside it: sharedFor takes them the other way
	if c.sharedS != nil {
		out = append(out, c.sharedS)
	}
	c.sharedMu.Unlock()
	return out
}

func hasSession(srv *Server) bool {
	for range srv.mcp.Sessions() {
		return true
	}
	return false
}

func (c *Clients) closeSessions() {
	c.mu.Lock()
	servers := make([]*Server, 0, len(c.live))
	for srv := range c.live {
		servers = append(servers, srv)
	}
	c.mu.Unlock()
	for _, srv := range servers {
		srv.closeSessions()
	}
}

// Close closes every client session; later clients are refused.
func (c *Clients) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.opts.rounds.close() // parked calls end; their requests' sessions are released
	c.mu.Lock()
	servers := make([]*Server, 0, len(c.live))
	for srv := range c.live {
		servers = append(servers, srv)
	}
	c.mu.Unlock()
	for _, srv := range servers {
		c.release(srv, "shutdown")
	}
	c.sharedMu.Lock()
	srv, sess := c.shared, c.sharedS
	c.shared, c.sharedS = nil, nil
	c.sharedMu.Unlock()
	if srv != nil {
		srv.Close()
		sess.Close()
	}
	// A client that disconnected as the server stopped may be halfway
	// through its own release: its session is closed before Close returns.
	c.releasing.Wait()
	return nil
}
