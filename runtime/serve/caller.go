package serve

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime"
)

// caller is the host behind one tools/call: what an upstream server sends
// while the call runs reaches it through the host's own MCP session.
type caller struct {
	ss    *mcp.ServerSession
	token any // the host's progress token; nil: it wants none
}

var _ mcpconn.Caller = (*caller)(nil)

func (c *caller) WantsProgress() bool { return c.token != nil }

func (c *caller) Progress(ctx context.Context, progress, total float64, message string) {
	if c.token == nil {
		return
	}
	c.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: c.token, Progress: progress, Total: total, Message: message})
}

// Log passes a message on at the level the host set (go-sdk sends none
// before the host sets one).
func (c *caller) Log(ctx context.Context, p *mcp.LoggingMessageParams) { c.ss.Log(ctx, p) }

// CreateMessage asks the host to sample, if it declared sampling: the
// upstream connection is shared with other hosts and may declare it for
// them.
func (c *caller) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if ip := c.ss.InitializeParams(); ip == nil || ip.Capabilities == nil || ip.Capabilities.Sampling == nil {
		return nil, errors.New("the host that made this call did not declare sampling")
	}
	return c.ss.CreateMessage(ctx, p)
}

func (c *caller) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return c.ss.Elicit(ctx, p)
}

// withCaller puts the host of req into ctx for the call.
func withCaller(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return ctx
	}
	if rc, ok := mcpconn.CallerFrom(ctx).(*roundCaller); ok && rc.host == nil {
		// Questions go to the host's rounds; progress and logs to its request.
		rc.own = caller{ss: ss, token: req.Params.GetProgressToken()}
		rc.host = &rc.own
		return ctx
	}
	return mcpconn.WithCaller(ctx, &caller{ss: ss, token: req.Params.GetProgressToken()})
}

// hostAware is a Session whose MCP connections follow the host's
// capabilities and whose tools can be taken again from its servers
// (*runtime.Session).
type hostAware interface {
	HostCapabilities(caps *mcp.ClientCapabilities) <-chan bool
	Refresh()
}

var _ hostAware = (*runtime.Session)(nil)

// hostInitialized tells the runtime's MCP client what the host declared:
// upstream servers may ask for sampling and elicitation only as far as
// the host can answer. Connections that declared less are replaced; then
// the session takes their tools again, for the tools servers list only to
// clients that declare what they need. Until that is done, lists wait
// (waitHost): a host that lists once must see those tools too.
func (s *Server) hostInitialized(req mcp.Request) {
	p, ok := req.GetParams().(*mcp.InitializeParams)
	if !ok || p == nil {
		return
	}
	s.hostDeclared(p.Capabilities, false)
}

// hostDeclared is hostInitialized for the capabilities a host declared,
// at initialize or (2026-07-28) in a request's _meta; the same
// declaration twice in a row changes nothing. Stateless hosts (together)
// share this server under serve --http and never say they are gone, so
// their declarations add up: one host's request without sampling must not
// take it from the connection another host's call is using. What each
// request may be asked is still its own declaration (roundCaller).
func (s *Server) hostDeclared(caps *mcp.ClientCapabilities, together bool) {
	r, ok := s.sess.(hostAware)
	if !ok {
		return
	}
	key := declaredBy(caps)
	s.hostMu.Lock()
	if together && s.hostSeen {
		key |= s.hostKey
	}
	if s.hostSeen && s.hostKey == key {
		s.hostMu.Unlock()
		return
	}
	s.hostSeen, s.hostKey = true, key
	if together {
		caps = key.capabilities()
	}
	ready := make(chan struct{})
	s.hostReady = ready
	s.hostMu.Unlock()
	replaced := r.HostCapabilities(caps)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(ready)
		select {
		case again := <-replaced:
			if !again {
				return
			}
			r.Refresh()
			s.markDirty()
		case <-s.done:
		}
	}()
}

// callerID is who made req: the inbound token's identity (the bearer
// token's name, a JWT's sub), or "" without inbound auth: then the call
// is runtime.LocalCaller's.
func callerID(req *mcp.CallToolRequest) string {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return ""
	}
	return req.Extra.TokenInfo.UserID
}

// hostWait bounds how long a list waits for connections replaced after
// the host declared its capabilities.
const hostWait = 15 * time.Second

// waitHost waits until the connections follow the capabilities the host
// declared last, so that a list includes what they offer such a host.
func (s *Server) waitHost(ctx context.Context) {
	s.hostMu.Lock()
	ready := s.hostReady
	s.hostMu.Unlock()
	if ready == nil {
		return
	}
	t := time.NewTimer(hostWait)
	defer t.Stop()
	select {
	case <-ready:
	case <-ctx.Done():
	case <-t.C:
	case <-s.done:
	}
}

// Host is the MCP session the call came in on: calls of one session
// belong to one host (mcpconn.HostOf).
func (c *caller) Host() any { return c.ss }
