package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/internal/redact"
)

// Reconnect backoff and health thresholds; variables so tests can shorten
// them.
var (
	minBackoff     = 250 * time.Millisecond
	maxBackoff     = 30 * time.Second
	redAfterMisses = 3 // consecutive failed pings before the connection is recycled
	refreshTimeout = 30 * time.Second
	clientName     = "toolgen"
	clientVersion  = "1"
)

// server is one shared connection and the goroutine (run) that supervises
// it: connect, watch, health-check, refresh tools, reconnect, tear down.
type server struct {
	m   *Manager
	key string
	cfg Config
	log *slog.Logger

	refs int // guarded by m.mu

	tried    chan struct{} // closed after the first attempt, whatever its outcome
	cameUp   chan struct{} // closed when an attempt first connects
	upOnce   sync.Once
	failures sync.WaitGroup // teardowns of failed attempts, off the waiting path

	closing   chan struct{}
	closeOnce sync.Once
	done      chan struct{} // run returned: everything released
	lifeCtx   context.Context
	lifeStop  context.CancelFunc

	live      atomic.Pointer[liveSession] // nil while down
	refresh   chan struct{}               // tools/list_changed arrived
	replacing chan bool                   // answered by replace (supervisor only)
	recycle   chan chan bool              // the host's capabilities changed; answered: replaced?
	calls     calls                       // in flight with a host (caller.go)

	mu        sync.Mutex
	health    Health
	err       error    // why down
	tools     []Tool   // kept while down so holders still see the last list
	listed    listings // what each declaration was listed (needs.go)
	listeners map[uint64]func()
	onFail    map[uint64]func(error) // told when the server dies
	nextID    uint64

	onFeatures map[uint64]func() // told when prompt or resource lists changed (features.go)
	features   features
	featureGen atomic.Uint64 // bumped when the prompt or resource lists changed
	skills     skillList     // skills.go
	subs       subscriptions
}

// liveSession is what callers read without a lock on every call.
type liveSession struct {
	cs           *mcp.ClientSession
	tools        []Tool
	instructions string
	inflight     *atomic.Int64 // calls running on cs (the attempt's)
	lean         *leanLine     // the attempt's; nil: tools/call goes through cs
	tasks        *taskAnswers  // the attempt's
}

func newServer(m *Manager, key string, cfg Config) *server {
	ctx, stop := context.WithCancel(context.Background())
	return &server{
		m: m, key: key, cfg: cfg,
		log:      cfg.Logger.With("server", cfg.Name),
		tried:    make(chan struct{}),
		cameUp:   make(chan struct{}),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
		lifeCtx:  ctx,
		lifeStop: stop,
		refresh:  make(chan struct{}, 1),
		recycle:  make(chan chan bool, 1),
		err:      errNotStarted,
	}
}

// close stops the connection and waits until its process is reaped.
func (s *server) close() {
	s.stop()
	<-s.done
}

// stop tells the supervisor to tear everything down.
func (s *server) stop() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.lifeStop()
	})
}

// stillStarting gives a holder that stopped waiting before the first
// attempt ended a reason to show until that attempt reports its own.
func (s *server) stillStarting(timeout time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == errNotStarted {
		s.err = fmt.Errorf("no answer within the startup timeout (%s) yet; still trying", timeout)
		s.health = HealthRed
	}
}

// attempt is one connected session and what must be released with it.
type attempt struct {
	cs       *mcp.ClientSession
	link     *link
	stop     context.CancelFunc
	tools    []Tool
	declared declaration  // the capabilities it declared (caller.go)
	inflight atomic.Int64 // calls running on it
	lean     *leanLine    // tools/call without go-sdk (lean.go), when it can
	tasks    *taskAnswers // raw answers of task calls (tasks.go)
}

func (a *attempt) close() {
	a.cs.Close()
	a.link.release()
	a.stop()
}

func (s *server) run() {
	defer close(s.done)
	defer s.failures.Wait()
	a := s.connectLoop(0)
	if a == nil {
		s.down(ErrClosed, false)
		s.log.Info("server.stop", "transport", s.cfg.transport(), "reason", "abandoned while starting")
		return
	}
	for {
		reason := s.watch(a)
		if reason == reasonRecycle {
			a = s.replace(a)
			continue
		}
		a.close()
		if s.isClosing() {
			break
		}
		s.down(s.withProcessState(reason, a.link), true)
		if a = s.connectLoop(1); a == nil {
			break
		}
	}
	s.down(ErrClosed, false)
	select { // a capability check nobody will make
	case ask := <-s.recycle:
		ask <- false
	default:
	}
	s.log.Info("server.stop", "transport", s.cfg.transport())
}

// connectLoop makes attempts numbered from n on, with exponential backoff
// between them, until one connects or the server is closed (nil). A
// reconnect (n > 0) waits before its first attempt too. Each failure is a
// server.fail event (at debug after the loop's first) and leaves the
// server red with the reason; Acquire waits for the outcome of attempt 0
// only.
func (s *server) connectLoop(n int) *attempt {
	first := n
	var delay time.Duration // the last wait
	if n > 0 {
		if delay = minBackoff; !s.sleep(delay) {
			return nil
		}
	}
	for ; ; n++ {
		a, err := s.connect(n)
		if err == nil {
			s.up(a, n)
		}
		delay = min(max(delay*2, minBackoff), maxBackoff)
		if err != nil && !s.isClosing() {
			s.down(err, false)
			// Said once per outage: the first attempt at error (warn for a
			// reconnect), the retries after it at debug, so that a server
			// that stays down does not fill stderr while it is retried.
			level := slog.LevelDebug
			switch {
			case n == 0:
				level = slog.LevelError
			case n == first:
				level = slog.LevelWarn
			}
			s.log.Log(context.Background(), level, "server.fail", "transport", s.cfg.transport(), "reason", err.Error(),
				"attempt", n, "retry_in_ms", delay.Milliseconds())
		}
		if n == 0 {
			close(s.tried)
		}
		if err == nil {
			return a
		}
		if !s.sleep(delay) {
			return nil
		}
	}
}

func (s *server) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.closing:
		return false
	}
}

func (s *server) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// connect makes one attempt: start or dial, initialize, list tools, all
// within the startup timeout. The session's context outlives the attempt
// (SSE streams and stdio reads are bound to it) and ends at teardown.
func (s *server) connect(n int) (*attempt, error) {
	start := time.Now()
	ctx, stop := context.WithCancel(s.lifeCtx)
	timeout := s.cfg.startupTimeout()
	timer := time.AfterFunc(timeout, stop)

	l, err := newLink(&s.cfg, s.onStderr, s.onStdoutGarbage)
	if err != nil {
		timer.Stop()
		stop()
		return nil, s.failStart(fmt.Errorf("start: %w", err), nil)
	}
	opts := s.clientOptions()
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: clientVersion}, opts)
	registerSkillMethods(client)
	tr, tasks := l.transport, (*taskAnswers)(nil)
	if taskCalls != nil { // linked by runtime/tasks (tasks.go)
		tr, tasks = taskCalls(client, l.transport)
	}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: s.cfg.protocolVersion()})
	var tools []Tool
	if err == nil {
		tools, err = s.listTools(ctx, cs)
		if err != nil {
			err = fmt.Errorf("tools/list: %w", err)
		} else {
			tools = s.learnNeeds(declared(opts), tools, nil, false)
		}
	} else {
		err = fmt.Errorf("connect: %w", err)
	}
	if !timer.Stop() {
		err = fmt.Errorf("no answer within the startup timeout (%s)", timeout)
	} else if err != nil && l.proc != nil {
		// Most often the process is exiting: its status and last words
		// make the reason, and are worth part of the time left.
		l.proc.settle(min(time.Until(start.Add(timeout)), settleMax))
	}
	if err != nil {
		err = s.failStart(err, l) // before the teardown: the process's state is the reason
		// Tearing a hung server down takes seconds (stdin, SIGTERM, SIGKILL
		// graces); nobody waiting for the outcome should wait for that.
		s.failures.Go(func() {
			if cs != nil {
				cs.Close()
			}
			l.release()
			stop()
		})
		return nil, err
	}
	s.log.Info("server.start", "transport", s.cfg.transport(), "tools", len(tools),
		"protocol", cs.InitializeResult().ProtocolVersion, "latency_ms", time.Since(start).Milliseconds(), "attempt", n)
	return &attempt{cs: cs, link: l, stop: stop, tools: tools, declared: declared(opts), lean: newLeanLine(l, cs), tasks: tasks}, nil
}

// failStart turns a failed attempt into its reason: how the process ended
// and what it said last, secrets redacted.
func (s *server) failStart(err error, l *link) error {
	if s.isClosing() { // every holder gave up or the Manager closed: not news
		return ErrClosed
	}
	return errors.New(s.withProcessState(err.Error(), l))
}

func (s *server) withProcessState(reason string, l *link) string {
	if l == nil || l.proc == nil {
		return s.redact(reason)
	}
	if e := l.proc.exitReason(); e != "" {
		reason += "; " + e
	}
	if t := l.proc.tail(); t != "" {
		reason += "; stderr: " + t // statuspage's /readyz cuts the reason here
	}
	return s.redact(reason)
}

// errToolCap marks a tool list over the server's caps: the server is red,
// and a list that changes past them ends its session.
var errToolCap = errors.New("tool list over the cap")

func (s *server) listTools(ctx context.Context, cs *mcp.ClientSession) ([]Tool, error) {
	var tools []Tool
	seen := map[string]bool{}
	listed, size := 0, 0
	maxTools, maxBytes := s.cfg.maxTools(), s.cfg.maxToolBytes()
	for t, err := range cs.Tools(ctx, nil) {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeMethodNotFound {
			return nil, nil // a server of prompts or resources only
		}
		if err != nil {
			return nil, err
		}
		// Counted before any is skipped, and checked per tool: the loop
		// stops before the next page is asked for.
		listed++
		size += toolSize(t)
		if listed > maxTools {
			return nil, fmt.Errorf("%w: more than %d tools", errToolCap, maxTools)
		}
		if size > maxBytes {
			return nil, fmt.Errorf("%w: more than %d bytes in %d tools", errToolCap, maxBytes, listed)
		}
		if t.Name == "" || seen[t.Name] {
			s.log.Warn("server.tool_schema", "tool", t.Name, "note", "empty or duplicate name: tool skipped")
			continue
		}
		schema, note, skip := normalizeSchema(t.InputSchema)
		if note != "" {
			s.log.Warn("server.tool_schema", "tool", t.Name, "note", note)
		}
		if skip {
			continue
		}
		seen[t.Name] = true
		tool := Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: schema,
			Annotations: t.Annotations, Meta: t.Meta}
		if t.OutputSchema != nil {
			tool.OutputSchema, _ = json.Marshal(t.OutputSchema)
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// toolSize is what a tool takes on the wire: about what it costs the host
// to keep and a model to read.
func toolSize(t *mcp.Tool) int {
	b, _ := json.Marshal(t)
	return len(b)
}

// watch returns why the session must end: it died, pings kept failing, or
// the server is closing ("").
func (s *server) watch(a *attempt) string {
	ended := make(chan error, 1)
	go func() { ended <- a.cs.Wait() }()

	var tick <-chan time.Time
	if s.cfg.HealthInterval > 0 {
		t := time.NewTicker(s.cfg.HealthInterval)
		defer t.Stop()
		tick = t.C
	}
	misses := 0
	for {
		select {
		case <-s.closing:
			return ""
		case err := <-ended:
			if err == nil {
				err = ErrClosed
			}
			return "connection lost: " + err.Error()
		case <-s.refresh:
			if reason := s.refreshTools(a); reason != "" {
				return reason
			}
		case ask := <-s.recycle:
			if a.declared.lacks(declared(s.clientOptions())) {
				s.replacing = ask
				return reasonRecycle
			}
			ask <- false
		case <-tick:
			switch s.ping(a.cs) {
			case HealthGreen:
				misses = 0
			case HealthRed:
				misses++
				if misses >= redAfterMisses {
					return fmt.Sprintf("%d health checks failed in a row", misses)
				}
				s.setHealth(HealthYellow, "ping failed")
			}
		}
	}
}

// reasonRecycle: the session must give way to one that declares what the
// host's capabilities now call for.
const reasonRecycle = "recycle"

// replace connects a session for the host's capabilities and publishes it
// before the old one closes; the old one's calls finish first. If the new
// one cannot connect, the old one stays.
func (s *server) replace(old *attempt) *attempt {
	ask := s.replacing
	b, err := s.connect(1)
	if err != nil {
		s.log.Warn("server.fail", "transport", s.cfg.transport(), "reason", err.Error(), "note", "kept the current connection")
		ask <- false
		return old
	}
	s.up(b, 1)
	ask <- true
	s.failures.Go(func() {
		for i := 0; old.inflight.Load() > 0 && i < int(refreshTimeout/(10*time.Millisecond)); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		old.close()
	})
	return b
}

// ping sets the health colour from one ping: green in time, yellow slow;
// it returns red for a missed ping and leaves the colour to watch.
func (s *server) ping(cs *mcp.ClientSession) Health {
	timeout := s.cfg.healthTimeout()
	ctx, cancel := context.WithTimeout(s.lifeCtx, timeout)
	defer cancel()
	start := time.Now()
	err := cs.Ping(ctx, nil)
	var rpcErr *jsonrpc.Error
	if err != nil && !errors.As(err, &rpcErr) { // an error reply still proves it is alive
		return HealthRed
	}
	if took := time.Since(start); took > timeout/2 {
		s.setHealth(HealthYellow, fmt.Sprintf("slow ping: %s", took.Round(time.Millisecond)))
		return HealthYellow
	}
	s.setHealth(HealthGreen, "")
	return HealthGreen
}

func (s *server) onListChanged(context.Context, *mcp.ToolListChangedRequest) {
	select {
	case s.refresh <- struct{}{}:
	default: // a refresh is already pending
	}
}

// refreshTools reads the tool list again after list_changed; it returns
// why the session must end when the new list is over the caps (the
// reconnect then leaves the server red with that reason).
func (s *server) refreshTools(a *attempt) string {
	ctx, cancel := context.WithTimeout(s.lifeCtx, refreshTimeout)
	defer cancel()
	tools, err := s.listTools(ctx, a.cs)
	if err != nil {
		if s.lifeCtx.Err() != nil {
			return "" // torn down while refreshing: nothing went wrong
		}
		if errors.Is(err, errToolCap) {
			return "tools/list: " + err.Error()
		}
		s.log.Warn("server.tools_refresh_failed", "reason", s.redact(err.Error()))
		return ""
	}
	l := s.live.Load()
	if l == nil {
		return ""
	}
	if tools = s.learnNeeds(a.declared, tools, l.tools, true); sameTools(l.tools, tools) {
		return ""
	}
	s.publish(a, tools)
	s.log.Info("server.tools_changed", "tools", len(tools))
	go s.notify()
	return ""
}

// up publishes a connected attempt. Holders hear of it when the tools
// changed, and always when the server comes up for the first time after
// failed attempts: its tools appear.
func (s *server) up(a *attempt, n int) {
	first := false
	s.upOnce.Do(func() { first = true })
	s.mu.Lock()
	changed := n > 0 && (first || !sameTools(s.tools, a.tools))
	s.mu.Unlock()
	s.publish(a, a.tools)
	s.setHealth(HealthGreen, "")
	if first {
		close(s.cameUp)
	}
	if n > 0 { // a reconnect: the lists may differ, and subscriptions died with the old session
		s.onFeaturesChanged()
		go s.resubscribe(a.cs)
	}
	if changed {
		s.log.Info("server.tools_changed", "tools", len(a.tools))
		go s.notify()
	}
}

func (s *server) publish(a *attempt, tools []Tool) {
	instr := ""
	if r := a.cs.InitializeResult(); r != nil {
		instr = r.Instructions
	}
	s.mu.Lock()
	s.tools = tools
	s.err = nil
	s.mu.Unlock()
	s.live.Store(&liveSession{cs: a.cs, tools: tools, instructions: instr, inflight: &a.inflight, lean: a.lean, tasks: a.tasks})
}

// down marks the connection unavailable; event says whether it is news
// worth a server.fail (a death, not a deliberate close).
func (s *server) down(reason any, event bool) {
	var err error
	switch r := reason.(type) {
	case error:
		err = r
	case string:
		err = errors.New(r)
	}
	s.live.Store(nil)
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	if event {
		s.log.Error("server.fail", "transport", s.cfg.transport(), "reason", err.Error(), "reconnecting", true)
		s.mu.Lock()
		fns := make([]func(error), 0, len(s.onFail))
		for _, fn := range s.onFail {
			fns = append(fns, fn)
		}
		s.mu.Unlock()
		if len(fns) > 0 {
			// Not on the supervisor: a listener may Release the last handle,
			// and close waits for the supervisor.
			go func() {
				for _, fn := range fns {
					fn(err)
				}
			}()
		}
	}
	s.setHealth(HealthRed, err.Error())
}

func (s *server) setHealth(h Health, reason string) {
	s.mu.Lock()
	prev := s.health
	s.health = h
	s.mu.Unlock()
	if prev == h || prev == "" && h == HealthGreen {
		return // no news, or simply the first start
	}
	if s.lifeCtx.Err() != nil {
		return // a deliberate stop: server.stop says so
	}
	attrs := []any{"health", string(h), "prev", string(prev)}
	if reason != "" {
		attrs = append(attrs, "reason", reason)
	}
	s.log.Info("server.health", attrs...)
}

func (s *server) getHealth() Health {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.health == "" {
		return HealthRed
	}
	return s.health
}

func (s *server) downErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// learnNeeds records tools as listed to a session that declared d and
// returns them with what each needs (needs.go); before is the session's
// previous list when relist (list_changed), none for its first.
func (s *server) learnNeeds(d declaration, tools, before []Tool, relist bool) []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed.learn(d.needs(), tools, before, relist)
}

func (s *server) lastTools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

func (s *server) addListener(fn func()) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listeners == nil {
		s.listeners = map[uint64]func(){}
	}
	s.nextID++
	s.listeners[s.nextID] = fn
	return s.nextID
}

func (s *server) addFailListener(fn func(error)) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onFail == nil {
		s.onFail = map[uint64]func(error){}
	}
	s.nextID++
	s.onFail[s.nextID] = fn
	return s.nextID
}

func (s *server) removeListener(id uint64) {
	s.mu.Lock()
	delete(s.listeners, id)
	delete(s.onFail, id)
	delete(s.onFeatures, id)
	s.mu.Unlock()
}

// notify runs the listeners on their own goroutine, never the
// supervisor's: a listener may Release the last handle, and close waits for
// the supervisor.
func (s *server) notify() {
	s.mu.Lock()
	fns := make([]func(), 0, len(s.listeners))
	for _, fn := range s.listeners {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

func (s *server) onStderr(line string) {
	s.log.Debug("server.stderr", "line", s.redact(line))
}

func (s *server) onStdoutGarbage(line string) {
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	s.log.Warn("server.stdout_garbage", "line", s.redact(line))
}

// redact removes secret values from text bound for events and errors.
func (s *server) redact(text string) string {
	return redact.String(text, s.cfg.Redact)
}

func (c *Config) transport() string {
	if c.Transport == "" {
		return TransportStdio
	}
	return c.Transport
}
