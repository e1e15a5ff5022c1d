package serve

import (
	"context"
	"net/http"

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
		defer c.release(srv, "request done")
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), startedKey{}, srv)))
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
