// Package serve exposes a runtime session as an MCP server (go-sdk), over
// stdio or streamable HTTP.
//
// tools/list is the session's current surface; tools/call goes through the
// session's call pipeline, so a blocked or failing call is an error result
// the model can read, never a protocol error. tools/list is answered from a
// list shared by every session showing the same tools (toollist.go); when
// the surface changes (tool_load, Switch, an upstream list_changed) the
// server takes the new list and go-sdk sends notifications/tools/list_changed.
package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/internal/serveauth"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Session is what a Server needs from a runtime session; *runtime.Session
// satisfies it.
type Session interface {
	Agent() string
	Tools() []runtime.ToolInfo
	Call(ctx context.Context, name string, args json.RawMessage) runtime.Result
	Instructions() []string
	Subscribe(fn func()) (cancel func())
}

var _ Session = (*runtime.Session)(nil)

// ProtocolVersions are the MCP versions the server negotiates, newest first.
// 2026-07-28 is served statelessly (per-request _meta; over HTTP by a
// stateless handler beside the session one, byRevision); the older ones
// with the initialize handshake and a session.
var ProtocolVersions = []string{StatelessRevision, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Options configure a Server. The zero value is usable.
type Options struct {
	// Name and Version are the server's implementation info; Name defaults
	// to the session's agent name.
	Name    string
	Version string
	// Logger receives serve events; nil discards them.
	Logger *slog.Logger
	// MaxMessageBytes caps one message from a client: a stdio line
	// (default DefaultMaxStdioBytes, 16 MiB) and an HTTP request body
	// (default go-sdk's, 4 MiB).
	MaxMessageBytes int
	// Beside is served next to MCP on the HTTP listener (the status page):
	// MCP then answers at /mcp only and Beside at every other path. If it
	// has a Close method, Close runs when the server begins shutting down
	// (to end its event streams).
	Beside http.Handler
	// Auth, when set, authenticates every HTTP request (bearer token or
	// OAuth access tokens; internal/serveauth), which then reaches MCP
	// without its Authorization header. Without it, HTTP serves only on
	// a loopback address.
	Auth *serveauth.Auth
	// Stateless serves HTTP without MCP sessions (go-sdk's stateless
	// streamable HTTP): every request may reach any replica behind a
	// load balancer without stickiness. Clients then opens a session per
	// request; what must outlive a request lives in the shared store.
	Stateless bool
	// StateKeys signs the request state of input-required results
	// (rounds.go); nil: a random key per process, or the fleet's key in
	// Store when there is one.
	StateKeys StateKeys
	// Store is shared by the replicas of a fleet: with it, a host's retry
	// of an input-required round may reach any replica
	// (rounds_shared.go). nil: one process.
	Store store.Store

	rounds *rounds // set by Clients: its servers share one table of parked calls
}

// newRoundsFor is the table of parked calls for opts.
func newRoundsFor(opts Options) *rounds {
	keys, shared := opts.StateKeys, roundSharer(nil)
	if opts.Store != nil && sharedRoundsOn != nil { // rounds_shared.go
		keys, shared = sharedRoundsOn(opts.Store, keys)
	}
	return newRounds(keys, shared)
}

// Server is one session served over MCP. Create it with New and release it
// with Close; it may serve stdio and HTTP connections at the same time.
type Server struct {
	sess       Session
	mcp        *mcp.Server
	impl       *mcp.Implementation // the serverInfo a 2026-07-28 result carries (lean26.go)
	info       []byte              // impl as encoding/json writes it in a result's _meta: the lean paths splice it in
	logger     *slog.Logger
	maxMessage int
	beside     http.Handler
	auth       *serveauth.Auth

	unsubscribe func()
	rounds      *rounds // calls parked for a stateless host's answers
	exts        []Extension
	holds       holds     // tasks running past their request (takecall.go)
	features    *features // nil unless the session offers prompts and resources (features.go)
	ownRounds   bool      // rounds are this server's, not its Clients'
	parked      parkedCalls

	mu        sync.Mutex    // guards list and synced, serializes sync
	list      *toolList     // what tools/list answers, shared (toollist.go)
	synced    uint64        // value of changes the last sync saw
	changes   atomic.Uint64 // bumped by every change callback
	dirty     chan struct{} // one pending resync signal
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup

	// onConnect, when set (by Clients), gets the MCP session of the
	// server's first request, once. Set before the server is reachable.
	onConnect   func(*mcp.ServerSession)
	connectOnce sync.Once

	hostMu    sync.Mutex
	hostSeen  bool          // a host declared its capabilities
	hostKey   declared      // what it declared (stateless hosts: together)
	hostReady chan struct{} // closed when the connections follow it

	// hostLogs: a host set a log level, so its calls' logs go on their
	// request's stream, which only go-sdk's HTTP path opens (leanhttp.go).
	hostLogs atomic.Bool
}

var discardLogger = slog.New(slog.DiscardHandler)

// New builds the MCP server for sess and registers its current tools.
// Server instructions are the session's instructions at this moment.
func New(sess Session, opts Options) *Server { return newServer(sess, opts, nil) }

func newServer(sess Session, opts Options, onConnect func(*mcp.ServerSession)) *Server {
	logger := opts.Logger
	if logger == nil {
		logger = discardLogger
	}
	name := opts.Name
	if name == "" {
		name = sess.Agent()
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := &Server{
		sess:       sess,
		logger:     logger,
		maxMessage: opts.MaxMessageBytes,
		beside:     opts.Beside,
		auth:       opts.Auth,
		dirty:      make(chan struct{}, 1),
		done:       make(chan struct{}),
		onConnect:  onConnect,
		rounds:     opts.rounds,
		ownRounds:  opts.rounds == nil,
	}
	mopts := &mcp.ServerOptions{
		Instructions: strings.Join(sess.Instructions(), "\n\n"),
		// Tools, with listChanged advertised even while the surface is
		// empty; logging, for what upstream servers log during a call.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true},
			Logging: &mcp.LoggingCapabilities{}},
		SupportedProtocolVersions: ProtocolVersions,
		Logger:                    quietLogger(logger),
		SetCacheable:              cacheHints,
	}
	featureOptions(sess, mopts, &s.features)
	exts := extensionsFor(sess, mopts)
	s.exts = exts
	s.impl = &mcp.Implementation{Name: name, Version: version}
	s.info, _ = json.Marshal(s.impl)
	s.mcp = mcp.NewServer(s.impl, mopts)
	for _, e := range exts {
		e.Install(sess, s.mcp)
	}
	if s.features != nil {
		s.features.mcp, s.features.logger = s.mcp, logger
	}
	if s.ownRounds {
		s.rounds = newRoundsFor(opts)
	}
	s.mcp.AddReceivingMiddleware(s.middleware)
	s.mcp.AddTool(listChanged, noCall) // no session yet: no notification
	s.unsubscribe = sess.Subscribe(s.markDirty)
	s.mu.Lock()
	s.syncLocked()
	s.mu.Unlock()
	s.wg.Add(1)
	go s.resyncLoop()
	return s
}

// MCP returns the underlying go-sdk server, for custom transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Close stops following the session's surface. It does not close the
// session, which the caller owns.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.unsubscribe()
		close(s.done)
	})
	s.wg.Wait()
	s.cancelHolds()
	s.parked.endAll(s.rounds) // inline calls too (rounds_inline.go)
	if s.ownRounds {
		s.rounds.close()
	}
	if s.features != nil {
		s.features.close()
	}
	return nil
}

// markDirty is the session's change callback. The session may call it while
// holding its own locks, so it only signals; the resync runs elsewhere.
func (s *Server) markDirty() {
	s.changes.Add(1)
	select {
	case s.dirty <- struct{}{}:
	default:
	}
}

func (s *Server) resyncLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.done:
			return
		case <-s.dirty:
			s.mu.Lock()
			s.syncLocked()
			s.mu.Unlock()
		}
	}
}

// syncIfDirty brings the tool set up to date before a tools/list, so a
// client listing right after tool_load sees the loaded tools even if the
// background resync has not run yet.
func (s *Server) syncIfDirty() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.synced != s.changes.Load() {
		s.syncLocked()
	}
}

// syncLocked makes the listed tools those of sess.Tools(); when they
// changed, go-sdk sends its clients one (debounced) tools/list_changed.
func (s *Server) syncLocked() {
	gen := s.changes.Load() // before Tools: a change after it forces another sync
	next := listOf(sessionTools(s.sess))
	s.synced = gen
	prev := s.list
	if next != prev {
		warnSchemas(s.logger, prev, next)
		s.list = next
		if prev != nil {
			s.mcp.AddTool(listChanged, noCall)
			s.logger.Debug("serve.tools", "agent", s.sess.Agent(), "tools", len(next.entries))
		}
	}
	if s.features != nil {
		s.features.sync()
	}
}

// middleware routes every tools/call through the session, including names
// the go-sdk server does not list (blocked, unknown, renamed or just
// loaded): the session's answer ("not allowed", "did you mean …") is more
// useful to a model than go-sdk's "unknown tool" protocol error.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if s.onConnect != nil {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				s.connectOnce.Do(func() { s.onConnect(ss) })
			}
		}
		switch method {
		case "logging/setLevel":
			s.hostLogs.Store(true)
		case "initialize":
			if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
				s.logClient(p)
			}
			s.hostInitialized(req)
		case "tools/call":
			s.perRequestHost(req)
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if res, taken, err := s.takeCall(ctx, r); taken {
					return res, err
				}
				if statelessHost(req) {
					return s.callInRounds(ctx, req, r.Params.RequestState, r.Params.InputResponses, func(ctx context.Context) (mcp.Result, error) {
						return s.handle(ctx, r)
					})
				}
				return s.handle(ctx, r)
			}
		case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
			s.perRequestHost(req)
			s.waitHost(ctx)
			s.syncIfDirty()
			if method == "tools/list" {
				return s.listTools(ctx, req)
			}
		case "prompts/get":
			// A server's prompt may ask the host while it renders: its
			// connection must follow what the host declared.
			s.perRequestHost(req)
			s.waitHost(ctx)
			if r, ok := req.(*mcp.GetPromptRequest); ok && r.Params != nil && s.features != nil {
				if statelessHost(req) {
					// An upstream's prompt may ask the host while it renders.
					return s.callInRounds(ctx, req, r.Params.RequestState, r.Params.InputResponses, func(ctx context.Context) (mcp.Result, error) {
						return s.features.getPrompt(ctx, r)
					})
				}
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
					ctx = mcpconn.WithCaller(ctx, &caller{ss: ss}) // asked by request, as in a call
				}
				if res, err := s.features.getPrompt(ctx, r); err != nil {
					return nil, err
				} else {
					return typedFor(req, res), nil
				}
			}
		case "resources/read":
			if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil && s.features != nil {
				if res, err := s.features.readResource(ctx, r); err != nil {
					return nil, err
				} else {
					cacheHints(ctx, req, &res.Cacheable)
					return typedFor(req, res), nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// cacheHints are the caching hints (SEP-2549) of lists and reads: private
// (a session's surface is its own: loaded tools, its agent, its policy)
// and stale at once, since tool_load or a switch changes it between two
// requests and a stateless HTTP host hears of that only by asking again.
func cacheHints(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
	c.TTLMs, c.CacheScope = 0, "private"
}

// perRequestHost follows the capabilities a host of the stateless
// revision declares in each request's _meta (go-sdk puts them in the
// session's InitializeParams), added to those of the stateless hosts
// before it (hostDeclared).
func (s *Server) perRequestHost(req mcp.Request) {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok {
		return
	}
	if p := ss.InitializeParams(); p != nil && p.ProtocolVersion >= StatelessRevision {
		s.hostDeclared(p.Capabilities, true)
		s.nameStatelessHost(p)
	}
}

// logClient says which MCP host connected (its own name and version, as
// it gave them), so that a log shows who drove the agent.
func (s *Server) logClient(p *mcp.InitializeParams) {
	var name, version string
	if p.ClientInfo != nil {
		name, version = clip(p.ClientInfo.Name), clip(p.ClientInfo.Version)
	}
	s.logger.Info("serve.client", "agent", s.sess.Agent(), "client", name, "client_version", version, "protocol", p.ProtocolVersion)
}

// clip cuts a client-sent string for a log line.
func clip(s string) string {
	if len(s) > 200 {
		return strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}

// handle runs one tools/call. Every outcome is a CallToolResult; a panic in
// a provider becomes an error result instead of taking the server down.
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r, failed := s.callTool(ctx, req)
	if failed != nil {
		return failed, nil
	}
	return toCallToolResult(r), nil
}

// callTool runs the call handle answers; failed is the answer instead
// when the call panicked.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (r runtime.Result, failed *mcp.CallToolResult) {
	name := req.Params.Name
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("serve.panic", "tool", name, "panic", fmt.Sprint(p))
			failed = errorResult(fmt.Sprintf("tool %q failed: internal error", name))
		}
	}()
	ctx, args := callInput(ctx, req)
	return s.sess.Call(ctx, name, args), nil
}

// callInput is a host's call as the session takes it: its arguments ({}
// for none), and its context carrying the host, the trace it continues
// and the caller.
func callInput(ctx context.Context, req *mcp.CallToolRequest) (context.Context, json.RawMessage) {
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		// A sub-agent without a model runs on this host's, if it samples.
		ctx = runtime.WithHost(ctx, ss)
	}
	// A host that traces sends its trace context in _meta: the tool call's
	// span continues that trace.
	ctx = telemetry.ExtractMeta(ctx, req.Params.Meta)
	ctx = runtime.WithCallerID(ctx, callerID(req))
	return withCaller(ctx, req), args
}

// toCallToolResult maps a runtime Result: a rich result's blocks,
// structuredContent, isError and _meta pass on unchanged; plain text is one
// text block; !OK is an error result carrying the error text. Kind,
// namespace and latency travel in _meta for hosts that want them.
func toCallToolResult(r runtime.Result) *mcp.CallToolResult {
	var res *mcp.CallToolResult
	switch {
	case r.Rich != nil && (r.OK || r.Rich.IsError):
		res = &mcp.CallToolResult{Content: r.Rich.Content, IsError: r.Rich.IsError}
		if res.Content == nil {
			res.Content = []mcp.Content{} // content is required on the wire
		}
		if len(r.Rich.Structured) > 0 {
			res.StructuredContent = r.Rich.Structured
		}
		if len(r.Rich.Meta) > 0 {
			res.Meta = make(mcp.Meta, len(r.Rich.Meta)+3)
			for k, v := range r.Rich.Meta {
				res.Meta[k] = v
			}
		}
	case r.OK:
		res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Result}}}
	default:
		msg := r.Error
		if msg == "" {
			msg = "tool call failed"
		}
		res = errorResult(msg)
	}
	if res.Meta == nil {
		res.Meta = make(mcp.Meta, 3)
	}
	res.Meta["toolgen.dev/latency_ms"] = float64(r.Latency.Microseconds()) / 1000
	if r.Kind != "" {
		res.Meta["toolgen.dev/kind"] = string(r.Kind)
	}
	if r.Namespace != "" {
		res.Meta["toolgen.dev/namespace"] = r.Namespace
	}
	return res
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
