package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrClosed is the reason of a connection whose Manager or last reference
// closed it.
var ErrClosed = errors.New("connection closed")

// Manager shares connections: Acquire with the same configuration (same
// server, command, URL, env, headers) returns handles on one connection,
// which closes when the last handle is released.
type Manager struct {
	logger *slog.Logger

	hostCaps atomic.Pointer[mcp.ClientCapabilities] // what the serving hosts declared, together; nil: no host
	hosts    hosts                                  // each host's own declaration (hosts.go)

	mu        sync.Mutex
	servers   map[string]*server // by Config.key
	closed    bool
	abandoned sync.WaitGroup // teardowns of servers nobody waited for
}

// NewManager returns a Manager whose events go to logger, unless a Config
// brings its own; with neither they are discarded. (Never slog.Default: a
// host's Options.Logger is the one place its events go.)
func NewManager(logger *slog.Logger) *Manager {
	return &Manager{logger: logger, servers: map[string]*server{}}
}

// SetHostCapabilities records what the one host serving the agent
// declared (nil: no host); DeclareHost is for several hosts at once.
// New connections declare sampling and elicitation only as far as the
// hosts do; a live one that declared less is replaced by a new connection
// (made before the old one closes, whose calls finish first), one that
// declared more is kept (declaration.lacks). The channel says,
// once every live connection has checked, whether any was replaced (its
// tools may have changed: servers list some tools only to clients that
// declare what they need).
func (m *Manager) SetHostCapabilities(caps *mcp.ClientCapabilities) <-chan bool {
	return m.DeclareHost(nil, caps)
}

// recheck stores what the hosts declare together and has every live
// connection compare it with what it declared.
func (m *Manager) recheck(caps *mcp.ClientCapabilities) <-chan bool {
	m.hostCaps.Store(caps)
	m.mu.Lock()
	var asks []chan bool
	for _, s := range m.servers {
		if s.live.Load() == nil {
			continue // connects with the new capabilities when it comes up
		}
		ask := make(chan bool, 1)
		select {
		case s.recycle <- ask:
			asks = append(asks, ask)
		default: // a check is pending already
		}
	}
	m.mu.Unlock()
	out := make(chan bool, 1)
	go func() {
		replaced := false
		for _, a := range asks {
			replaced = <-a || replaced
		}
		out <- replaced
	}()
	return out
}

func (m *Manager) hostCapabilities() *mcp.ClientCapabilities { return m.hostCaps.Load() }

// Acquire returns a handle on the connection for cfg, starting it if no
// handle holds it. It waits until the server has answered initialize and
// tools/list, or failed to (within cfg.StartupTimeout), or ctx is done.
// A server that cannot start is an error here (for a server that has not
// been up since it was started); one that dies later is reconnected in the
// background and reported by Health and Err.
func (m *Manager) Acquire(ctx context.Context, cfg Config) (*Conn, error) {
	s, err := m.join(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-s.tried:
	case <-ctx.Done():
		m.abandon(s)
		return nil, fmt.Errorf("server %q: gave up waiting for it to start: %w", cfg.Name, ctx.Err())
	}
	select {
	case <-s.cameUp:
		return &Conn{s: s}, nil
	default:
	}
	if err = s.downErr(); s.isClosing() {
		err = ErrClosed
	}
	m.abandon(s)
	return nil, fmt.Errorf("server %q: %w", cfg.Name, err)
}

// AcquireRetrying is Acquire for a holder that wants the server even if it
// does not come up now. It waits for the first attempt as Acquire does, at
// most cfg.StartupTimeout (and never for a retry); a server that is not up
// by then is returned down (Health red, Err says why) rather than as an
// error, and is retried with backoff in the background for as long as a
// handle holds it. When it comes up, its tools appear and OnToolsChanged
// listeners run. The error is for a bad Config or a closed Manager only.
func (m *Manager) AcquireRetrying(ctx context.Context, cfg Config) (*Conn, error) {
	s, err := m.join(cfg)
	if err != nil {
		return nil, err
	}
	timeout := cfg.startupTimeout()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.tried:
	case <-t.C:
		s.stillStarting(timeout)
	case <-ctx.Done():
		s.stillStarting(timeout)
	}
	return &Conn{s: s}, nil
}

// join takes a reference on the server for cfg, starting it if needed.
func (m *Manager) join(cfg Config) (*server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = m.logger
		if cfg.Logger == nil {
			cfg.Logger = slog.New(slog.DiscardHandler)
		}
	}
	key := cfg.key()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("server %q: %w: manager closed", cfg.Name, ErrClosed)
	}
	s := m.servers[key]
	if s == nil {
		s = newServer(m, key, cfg)
		m.servers[key] = s
		go s.run()
	}
	s.refs++
	return s, nil
}

// release drops one reference; the last one closes the connection and
// waits for its teardown.
func (m *Manager) release(s *server) {
	m.mu.Lock()
	last := m.drop(s)
	m.mu.Unlock()
	if last {
		s.close()
	}
}

// abandon drops a reference its holder never got to use (a failed or
// given-up Acquire). The last one closes the connection without waiting:
// tearing down a server that hangs takes seconds, which the caller should
// not wait out. Close waits for it.
func (m *Manager) abandon(s *server) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.drop(s) {
		s.stop()
		if !m.closed { // else Close is closing it already
			m.abandoned.Go(s.close)
		}
	}
}

// drop removes one reference and reports whether it was the last; m.mu is
// held.
func (m *Manager) drop(s *server) bool {
	s.refs--
	last := s.refs == 0
	if last && m.servers[s.key] == s {
		delete(m.servers, s.key)
	}
	return last
}

// Close closes every connection, whatever its references, and waits for
// their teardown (processes reaped). Later Acquires fail.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	clear(m.servers)
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.close)
	}
	wg.Wait()
	m.abandoned.Wait()
	return nil
}
