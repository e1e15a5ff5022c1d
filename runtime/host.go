package runtime

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Host owns what the sessions of one process share: each registry's tool
// pool and the MCP connections (started once, shared by every session that
// needs the same server). A host program makes one Host, opens its
// sessions on it and closes it last; Close stops the connections and frees
// the pools. Nothing is kept at package level.
type Host struct {
	mgr *mcpconn.Manager

	mu     sync.Mutex
	pools  map[*Registry]*Pool
	closed bool
}

// NewHost returns a Host whose connection events go to logger (nil:
// discarded).
func NewHost(logger *slog.Logger) *Host {
	if logger == nil {
		logger = discard
	}
	m := mcpconn.NewManager(logger)
	return &Host{mgr: m, pools: map[*Registry]*Pool{}}
}

// Registry is the static description of one spec that toolgen generates
// (package decl holds its definition and the rest of the contract).
type Registry = decl.Registry

var errHostClosed = errors.New("host closed")

// Open resolves an agent's tool surface, connects the servers it needs
// (through opts.Connector, or the Host's connections) and returns a ready
// session. A server that fails to start is reported (event and Servers)
// and its tools are unavailable; the rest go on.
func (h *Host) Open(ctx context.Context, reg *Registry, agent string, opts Options) (*Session, error) {
	p, err := h.pool(reg)
	if err != nil {
		return nil, err
	}
	opts.Host = h // sub-agents open on it too
	if opts.Connector == nil {
		opts.Connector = mcpConnector{m: h.mgr, log: opts.Logger, tokens: opts.Store}
	}
	return openSession(ctx, h, p, reg, agent, opts)
}

// Open opens a session on opts.Host. Without one it opens on a Host of its
// own, closed with the session: enough for a program with one session.
// Sessions that should share pools, queues and connections name one Host
// (NewHost), as the generated OpenX constructors allow through Options.
//
// A Host of the session's own sends its connection events to
// opts.Logger too.
func Open(ctx context.Context, reg *Registry, agent string, opts Options) (*Session, error) {
	if opts.Host != nil {
		return opts.Host.Open(ctx, reg, agent, opts)
	}
	h := NewHost(opts.Logger)
	s, err := h.Open(ctx, reg, agent, opts)
	if err != nil {
		h.Close()
		return nil, err
	}
	s.ownHost = true
	return s, nil
}

// pool returns the registry's pool, creating it on first use.
func (h *Host) pool(reg *Registry) (*Pool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errHostClosed
	}
	p := h.pools[reg]
	if p == nil {
		p = newPool(reg)
		h.pools[reg] = p
	}
	return p, nil
}

// Close stops the Host's MCP connections and frees its pools. Sessions
// still open on it lose their servers; close them first.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	pools := h.pools
	h.pools = map[*Registry]*Pool{}
	h.mu.Unlock()
	for _, p := range pools {
		p.close()
	}
	return h.mgr.Close()
}
