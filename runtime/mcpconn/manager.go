package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// ErrClosed is the reason of a connection whose Manager or last reference
// closed it.
var ErrClosed = errors.New("connection closed")

// Manager shares connections: Acquire with the same configuration (same
// server, command, URL, env, headers) returns handles on one connection,
// which closes when the last handle is released.
type Manager struct {
	logger *slog.Logger

	mu      sync.Mutex
	servers map[string]*server // by Config.key
	closed  bool
}

// NewManager returns a Manager whose events go to logger (nil: slog.Default,
// unless a Config brings its own).
func NewManager(logger *slog.Logger) *Manager {
	return &Manager{logger: logger, servers: map[string]*server{}}
}

var shared = sync.OnceValue(func() *Manager { return NewManager(nil) })

// Shared is the process-wide Manager the runtime uses.
func Shared() *Manager { return shared() }

// Acquire returns a handle on the connection for cfg, starting it if no
// handle holds it. It waits until the server has answered initialize and
// tools/list, or failed to (within cfg.StartupTimeout), or ctx is done.
// A server that cannot start is an error here; one that dies later is
// reconnected in the background and reported by Health and Err.
func (m *Manager) Acquire(ctx context.Context, cfg Config) (*Conn, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = m.logger
		if cfg.Logger == nil {
			cfg.Logger = slog.Default()
		}
	}
	key := cfg.key()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("server %q: %w: manager closed", cfg.Name, ErrClosed)
	}
	s := m.servers[key]
	if s == nil {
		s = newServer(m, key, cfg)
		m.servers[key] = s
		go s.run()
	}
	s.refs++
	m.mu.Unlock()

	select {
	case <-s.ready:
	case <-ctx.Done():
		m.release(s)
		return nil, fmt.Errorf("server %q: gave up waiting for it to start: %w", cfg.Name, ctx.Err())
	}
	if s.startErr != nil {
		m.release(s)
		return nil, s.startErr
	}
	return &Conn{s: s}, nil
}

// release drops one reference; the last one closes the connection and
// waits for its teardown.
func (m *Manager) release(s *server) {
	m.mu.Lock()
	s.refs--
	last := s.refs == 0
	if last && m.servers[s.key] == s {
		delete(m.servers, s.key)
	}
	m.mu.Unlock()
	if last {
		s.close()
	}
}

// forget removes a server that failed to start, so the next Acquire tries
// again rather than sharing the failure.
func (m *Manager) forget(s *server) {
	m.mu.Lock()
	if m.servers[s.key] == s {
		delete(m.servers, s.key)
	}
	m.mu.Unlock()
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
	return nil
}
