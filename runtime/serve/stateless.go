package serve

import (
	"context"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessHandler serves each POST with a session of its own, opened for
// the request and closed after it (Options.Stateless): nothing of one
// request stays on this replica for the next, which may land elsewhere.
// GET and DELETE get go-sdk's 405: there is no stream to resume.
func (c *Clients) statelessHandler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(c.serverFor, &mcp.StreamableHTTPOptions{
		Logger:              quietLogger(c.opts.Logger),
		Stateless:           true,
		MaxRequestBodyBytes: int64(c.opts.MaxMessageBytes),
	})
	return rebindingGuard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		srv, err := c.openRequest(r)
		if err != nil {
			c.opts.Logger.Error("serve.request_open", "remote", r.RemoteAddr, "error", err)
			http.Error(w, "cannot open an agent session: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), startedKey{}, srv)))
		// A call parked for the host's answers keeps the session.
		srv.parked.whenIdle(func() { c.release(srv, "request done") })
	}))
}

// openRequest opens the session of one stateless request; it ends with
// the request.
func (c *Clients) openRequest(r *http.Request) (*Server, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, errShuttingDown
	}
	sess, err := c.open(r.Context())
	if err != nil {
		return nil, err
	}
	srv := newServer(sess, c.opts, nil)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		srv.Close()
		sess.Close()
		return nil, errShuttingDown
	}
	c.live[srv] = &clientSession{sess: sess}
	c.mu.Unlock()
	return srv, nil
}

// parkedCalls are the calls a server started for a stateless-revision
// host that have not ended, running or parked for their host's next round.
// A request's session must outlive the request until they end: the call
// runs on it, and the retry may come to any replica.
type parkedCalls struct {
	mu   sync.Mutex
	live map[*round]bool
	then func() // run when the last ends (whenIdle)
}

func (p *parkedCalls) add(r *round) {
	p.mu.Lock()
	if p.live == nil {
		p.live = map[*round]bool{}
	}
	p.live[r] = true
	p.mu.Unlock()
}

// remove is told by rounds.end that r ended (once or more).
func (p *parkedCalls) remove(r *round) {
	p.mu.Lock()
	var then func()
	if p.live[r] {
		delete(p.live, r)
		if len(p.live) == 0 {
			then, p.then = p.then, nil
		}
	}
	p.mu.Unlock()
	if then != nil {
		then()
	}
}

// whenIdle runs f now if no call is parked, else when the last one ends.
func (p *parkedCalls) whenIdle(f func()) {
	p.mu.Lock()
	if len(p.live) == 0 {
		p.mu.Unlock()
		f()
		return
	}
	p.then = f
	p.mu.Unlock()
}

// endAll cancels the parked calls (their server is closing).
func (p *parkedCalls) endAll(rs *rounds) {
	p.mu.Lock()
	all := make([]*round, 0, len(p.live))
	for r := range p.live {
		all = append(all, r)
	}
	p.mu.Unlock()
	for _, r := range all {
		rs.end(r)
	}
}
