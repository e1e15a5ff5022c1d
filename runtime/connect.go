package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
)

// upstreamConn is one agent context's use of a server connection.
type upstreamConn struct {
	ready   chan struct{} // closed once up or err is set
	up      Upstream
	err     error
	down    bool // up was handed out down and has not come up since (guarded by agentState.mu)
	unwatch func()
	unfail  func()
	once    sync.Once
}

func (c *upstreamConn) release() {
	<-c.ready
	c.once.Do(func() {
		if c.unwatch != nil {
			c.unwatch()
		}
		if c.unfail != nil {
			c.unfail()
		}
		if c.up != nil {
			c.up.Release()
		}
	})
}

// connect starts the named servers that are not started yet, at most
// init_concurrency at a time, each bounded by its startup timeout. A server
// that fails is recorded and reported; the others go on.
func (st *agentState) connect(ctx context.Context, servers []string) {
	var todo []*upstreamConn
	var names []string
	var wait []*upstreamConn
	st.mu.Lock()
	if st.torndown {
		st.mu.Unlock()
		return
	}
	for _, name := range servers {
		if c := st.ups[name]; c != nil {
			wait = append(wait, c)
			continue
		}
		c := &upstreamConn{ready: make(chan struct{})}
		st.ups[name] = c
		todo = append(todo, c)
		names = append(names, name)
	}
	st.mu.Unlock()
	limit := st.s.reg.Defaults.InitConcurrency
	if limit <= 0 {
		limit = 4
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, c := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			st.start(ctx, names[i], c)
		}()
	}
	wg.Wait()
	for _, c := range wait {
		select {
		case <-c.ready:
		case <-ctx.Done():
			return
		}
	}
}

func (st *agentState) start(ctx context.Context, name string, c *upstreamConn) {
	defer close(c.ready)
	srv := st.s.pool.servers[name]
	if srv == nil {
		c.err = fmt.Errorf("unknown server %q", name)
		return
	}
	timeout := srv.StartupTimeout
	if timeout <= 0 {
		timeout = st.s.reg.Defaults.StartupTimeout
	}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	begin := time.Now()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	up, err := safeAcquire(cctx, st.s.opts.Connector, srv, st.s.opts.Getenv)
	cancel()
	if err == nil && up == nil {
		err = fmt.Errorf("server %q: connector returned no connection", name)
	}
	if err != nil {
		c.err = err
		event.Emit(st.log, slog.LevelError, EventServerFail, slog.String("agent", st.agent.Name),
			slog.String("server", name), slog.String("error", err.Error()))
		st.s.tel.ServerHealth(name, string(HealthRed))
		return
	}
	c.up = up
	dr, _ := up.(downReporter)
	down := dr != nil && dr.Err() != nil
	if down {
		// Not up yet, and retried in the background: its tools appear
		// when toolsChanged hears that it came up.
		st.mu.Lock()
		c.down = true
		st.mu.Unlock()
		event.Emit(st.log, slog.LevelError, EventServerFail, slog.String("agent", st.agent.Name),
			slog.String("server", name), slog.String("error", dr.Err().Error()))
		st.s.tel.ServerHealth(name, string(HealthRed))
	} else {
		st.s.tel.ServerHealth(name, string(up.Health()))
		event.Emit(st.log, slog.LevelInfo, EventServerStart, slog.String("agent", st.agent.Name),
			slog.String("server", name), slog.String("transport", srv.Transport),
			slog.Int("tools", len(up.Tools())), slog.String("health", string(up.Health())),
			slog.Float64("latency_ms", ms(time.Since(begin))))
		st.recordTools(name, up)
	}
	c.unwatch = up.OnToolsChanged(func() { st.toolsChanged(name, up) })
	if down && dr.Err() == nil {
		st.toolsChanged(name, up) // it came up before the listener was in place
	}
	if fn, ok := up.(failNotifier); ok {
		c.unfail = fn.OnFail(func(err error) {
			event.Emit(st.log, slog.LevelError, EventServerFail, slog.String("agent", st.agent.Name),
				slog.String("server", name), slog.String("error", err.Error()))
			st.s.tel.ServerHealth(name, string(HealthRed))
		})
	}
	if srv.HealthInterval > 0 {
		go st.watchHealth(name, up, up.Health(), srv.HealthInterval)
	}
}

// watchHealth reports health transitions (green/yellow/red) that the
// connection's pings observe, as server.health events, until teardown.
func (st *agentState) watchHealth(name string, up Upstream, last Health, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-st.ctx.Done():
			return
		case <-t.C:
		}
		h := up.Health()
		if h == last {
			continue
		}
		level := slog.LevelInfo
		if h != HealthGreen {
			level = slog.LevelWarn
		}
		event.Emit(st.log, level, EventServerHealth, slog.String("agent", st.agent.Name), slog.String("server", name),
			slog.String("health", string(h)), slog.String("previous", string(last)))
		st.s.tel.ServerHealth(name, string(h))
		last = h
	}
}

// safeAcquire turns a connector panic into an error.
func safeAcquire(ctx context.Context, conn Connector, srv *decl.Server, getenv func(string) (string, bool)) (up Upstream, err error) {
	defer func() {
		if r := recover(); r != nil {
			up, err = nil, fmt.Errorf("server %q: connector panicked: %v", srv.Name, r)
		}
	}()
	return conn.Acquire(ctx, srv, getenv)
}

// recordTools hands a server's tool list to the pool and reports drift
// from the lock file.
func (st *agentState) recordTools(name string, up Upstream) bool {
	changed, d := st.s.pool.setLive(name, up.Tools())
	if !d.empty() {
		event.Emit(st.log, slog.LevelWarn, EventLockDrift, slog.String("server", name),
			slog.Any("added", d.Added), slog.Any("removed", d.Removed), slog.Any("changed", d.Changed),
			slog.String("on_drift", st.s.pool.servers[name].DriftMode()), slog.Any("held", d.Held))
	}
	st.reportCollisions()
	return changed
}

// reportCollisions logs the pool's name clashes this session is the first
// to see (tool.collision, with the winner and the loser).
func (st *agentState) reportCollisions() {
	for _, c := range st.s.pool.newCollisions() {
		event.Emit(st.log, slog.LevelWarn, EventToolCollision, slog.String("tool", c.name),
			slog.String("winner", c.winner), slog.String("loser", c.loser))
	}
}

// toolsChanged follows an upstream tools/list_changed: the pool is
// rebuilt, and the agent's use set is resolved again over it, so that a
// tool the server added joins the surface and one it removed leaves it.
// The new set goes through the same rules as the first: tools.allowed,
// untrusted servers meta only, the lock's on_drift (the pool holds back
// what it does not admit); tools.use globs keep their first matches
// (following).
func (st *agentState) toolsChanged(name string, up Upstream) {
	if st.ctx.Err() != nil {
		return
	}
	st.recordTools(name, up)
	st.mu.Lock()
	if st.torndown {
		st.mu.Unlock()
		return
	}
	building := st.built == nil // then the build resolves over the new lists itself
	if !building {
		next := st.s.pool.resolution(st.s.pool.snap.Load(), st.agent, st.s.opts.Depth, st.s.opts.depthLimit)
		st.resolved.Store(following(next, st.built))
	}
	cameUp := false
	if c := st.ups[name]; c != nil && c.down {
		if dr, ok := up.(downReporter); !ok || dr.Err() == nil {
			c.down, cameUp = false, true
		}
	}
	changed := !building && st.rebuildSurfaceLocked()
	st.mu.Unlock()
	if cameUp {
		event.Emit(st.log, slog.LevelInfo, EventServerStart, slog.String("agent", st.agent.Name),
			slog.String("server", name), slog.Int("tools", len(up.Tools())), slog.String("health", string(up.Health())))
	}
	if changed {
		st.s.notify()
	}
}

// Refresh takes the tool lists the agent's servers have now, as their
// tools/list_changed would, without starting the agent over: loaded
// tools, memory and calls in flight stay. serve calls it when a host's
// capabilities replaced connections (servers list some tools only to
// clients that declare sampling or elicitation), before a list waiting
// for them is answered.
func (s *Session) Refresh() {
	st := s.st.Load()
	if st == nil {
		return
	}
	st.mu.Lock()
	ups := make(map[string]Upstream, len(st.ups))
	for name, c := range st.ups {
		select {
		case <-c.ready: // up is set, or err
			if c.up != nil {
				ups[name] = c.up
			}
		default: // still connecting: its tools come when it is up
		}
	}
	st.mu.Unlock()
	for name, up := range ups {
		st.toolsChanged(name, up)
	}
}

// upstream returns the live connection of a server, connecting it lazily.
func (st *agentState) upstream(ctx context.Context, server string) (Upstream, error) {
	st.mu.Lock()
	c := st.ups[server]
	st.mu.Unlock()
	if c == nil {
		st.connect(ctx, []string{server})
		st.mu.Lock()
		c = st.ups[server]
		st.mu.Unlock()
		if c == nil {
			return nil, pipeline.ErrClosed
		}
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if c.err != nil {
		return nil, fmt.Errorf("server %s unavailable: %v", server, c.err)
	}
	return c.up, nil
}
