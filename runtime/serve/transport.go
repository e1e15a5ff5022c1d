package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/serveauth"
)

// ServeIO serves one MCP connection of newline-delimited JSON-RPC over in
// and out (stdin and stdout for an agent binary) until the client hangs up
// or ctx is cancelled; both are a clean end (nil). A line that is not a
// JSON-RPC message, nests too deep or is over Options.MaxMessageBytes is
// answered with a JSON-RPC error if its id can be found, dropped if not,
// and the connection goes on.
func (s *Server) ServeIO(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	max := s.maxMessage
	if max <= 0 {
		max = DefaultMaxStdioBytes
	}
	t := &stdioTransport{in: in, out: out, max: max, logger: s.logger, server: s}
	err := s.run(ctx, t)
	// A write to a client that has hung up (a 2026-07-28 client ends its
	// subscriptions/listen as it goes) is the same clean end as EOF.
	if err == nil || t.hungUp.Load() || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil
	}
	return err
}

// run is go-sdk's Server.Run, which also hands the session to the
// connection's leanCalls.
func (s *Server) run(ctx context.Context, t *stdioTransport) error {
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	t.lean.ss.Store(ss)
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-ended
		return ctx.Err()
	case err := <-ended:
		return err
	}
}

// shutdownGrace bounds how long in-flight HTTP requests may finish after
// the context is cancelled; open SSE streams are closed before that.
const shutdownGrace = 3 * time.Second

// Handler is the streamable HTTP endpoint (every path), guarded against DNS
// rebinding: sessions for the revisions with a handshake, stateless
// requests for 2026-07-28 (byRevision).
func (s *Server) Handler() http.Handler {
	get := func(*http.Request) *mcp.Server { return s.mcp }
	return rebindingGuard(byRevision(mcp.NewStreamableHTTPHandler(get, s.httpOptions(false)),
		mcp.NewStreamableHTTPHandler(get, s.httpOptions(true))))
}

func (s *Server) httpOptions(stateless bool) *mcp.StreamableHTTPOptions {
	return &mcp.StreamableHTTPOptions{
		Logger: quietLogger(s.logger),
		// go-sdk reads a body through http.MaxBytesReader (413 beyond) and
		// refuses JSON nested over 1000 levels (400).
		MaxRequestBodyBytes: int64(s.maxMessage),
		Stateless:           stateless,
	}
}

// ListenAndServe serves streamable HTTP on addr until ctx is cancelled,
// then shuts down: open MCP sessions are closed and in-flight requests get
// shutdownGrace to finish. ready, if non-nil, gets the bound address (useful
// with port 0) once the listener is open. Every client shares this Server's
// session; NewClients gives each client its own.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := listen(addr, ready, s.auth)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Serve is ListenAndServe on an open listener, which it closes.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return serveHTTP(ctx, ln, mount(s.Handler(), s.beside), s.logger, s.sess.Agent(), s.closeSessions, s.beside, s.auth)
}

// closeSessions ends every MCP connection of the server.
func (s *Server) closeSessions() {
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
}

func listen(addr string, ready func(net.Addr), a *serveauth.Auth) (net.Listener, error) {
	ln, err := Listen(addr, a != nil)
	if err != nil {
		return nil, err
	}
	if ready != nil {
		ready(ln.Addr())
	}
	return ln, nil
}

// Listen binds addr for HTTP serving, refusing an address other machines
// can reach unless the server will authenticate. A caller that binds
// before it starts its MCP servers fails at once on a port in use, with
// nothing started (Clients.Serve then serves on it).
func Listen(addr string, authenticated bool) (net.Listener, error) {
	// Refused before listening (and again on the bound address, which
	// ":0" does not show): anyone who can reach the port could call the
	// agent's tools.
	if err := serveauth.CheckExposure(addr, authenticated); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve http: %w", err)
	}
	if err := serveauth.CheckExposure(ln.Addr().String(), authenticated); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// mcpPath is where MCP answers when a handler is served beside it.
const mcpPath = "/mcp"

// mount routes /mcp to the MCP handler and everything else to beside; with
// no beside, MCP answers at every path.
func mount(mcpH, beside http.Handler) http.Handler {
	if beside == nil {
		return mcpH
	}
	mux := http.NewServeMux()
	mux.Handle(mcpPath, mcpH)
	mux.Handle(mcpPath+"/", mcpH)
	mux.Handle(ssePath, mcpH)
	mux.Handle("/", beside)
	return mux
}

// serveHTTP runs h on ln until ctx is cancelled. closeSessions ends the
// open MCP sessions first: SSE streams never go idle by themselves, and
// Shutdown would wait out the grace period on them.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler, logger *slog.Logger, agent string, closeSessions func(), beside http.Handler, a *serveauth.Auth) error {
	if err := serveauth.CheckExposure(ln.Addr().String(), a != nil); err != nil {
		ln.Close()
		return err
	}
	if a != nil {
		h = a.Wrap(h) // the status page too: it shows and switches the agent
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if c, ok := beside.(interface{ Close() }); ok {
		hs.RegisterOnShutdown(c.Close)
	}
	logger.Info("serve.http", "agent", agent, "addr", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	closeSessions()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-errc
	logger.Info("serve.http_stopped", "agent", agent)
	return nil
}

// rebindingGuard rejects, with 403, requests that reached a loopback
// listener under a non-loopback Host or from a non-loopback Origin: that is
// a browser on some web page talking to the local server after a DNS
// rebinding. go-sdk checks Host on its own; Origin it does not.
func rebindingGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && isLoopback(local.String()) {
			if !isLoopback(r.Host) {
				http.Error(w, fmt.Sprintf("Forbidden: Host %q is not localhost", r.Host), http.StatusForbidden)
				return
			}
			if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
				http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not localhost", origin), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // includes the opaque "null" origin
	}
	return isLoopback(u.Host)
}

// isLoopback reports whether a host or host:port names this machine:
// localhost or a loopback IP.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// quietLogger passes go-sdk's own logging through at warning level and up:
// its info lines (session connected, run start) are noise next to events.
func quietLogger(l *slog.Logger) *slog.Logger {
	return slog.New(minLevel{l.Handler(), slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}
func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.min}
}
func (h minLevel) WithGroup(n string) slog.Handler { return minLevel{h.Handler.WithGroup(n), h.min} }
