package serve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
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

func (c *caller) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
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
	return mcpconn.WithCaller(ctx, &caller{ss: ss, token: req.Params.GetProgressToken()})
}

// hostAware is a Session whose MCP connections follow the host's
// capabilities and whose surface can be resolved again (*runtime.Session).
type hostAware interface {
	HostCapabilities(caps *mcp.ClientCapabilities) <-chan bool
	Rebuild(ctx context.Context) error
}

// hostInitialized tells the runtime's MCP client what the host declared:
// upstream servers may ask for sampling and elicitation only as far as
// the host can answer. Connections that declared otherwise are replaced;
// then the session is resolved again, for the tools servers list only to
// clients that declare what they need.
func (s *Server) hostInitialized(req mcp.Request) {
	p, ok := req.GetParams().(*mcp.InitializeParams)
	if !ok || p == nil {
		return
	}
	r, ok := s.sess.(hostAware)
	if !ok {
		return
	}
	replaced := r.HostCapabilities(p.Capabilities)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case again := <-replaced:
			if !again {
				return
			}
			if err := r.Rebuild(context.Background()); err != nil {
				s.logger.Warn("serve.rebuild", "agent", s.sess.Agent(), "error", err.Error())
			}
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
