package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/internal/model"
)

// What a Go tool can ask of the host that made its call (an MCP host
// serving the agent), through the call's ctx. Without such a host (the
// agent's own CLI) Progress and Log do nothing, Sample fails and Elicit is
// declined, each saying why.

// ErrNoHost: no MCP host made the call, so none can answer.
var ErrNoHost = mcpconn.ErrNoHost

// Progress reports progress, when the host asked for it with a token.
func Progress(ctx context.Context, progress, total float64, message string) {
	if c := mcpconn.CallerFrom(ctx); c != nil && c.WantsProgress() {
		c.Progress(ctx, progress, total, message)
	}
}

// Log sends a log message (notifications/message) at level ("debug",
// "info", "warning", "error" …), if the host set a level that lets it
// through.
func Log(ctx context.Context, level, logger string, data any) {
	if c := mcpconn.CallerFrom(ctx); c != nil {
		c.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level), Logger: logger, Data: data})
	}
}

// Sample asks the host's model for a message (sampling/createMessage).
func Sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	c := mcpconn.CallerFrom(ctx)
	if c == nil {
		return nil, errors.New("sampling: " + ErrNoHost.Error())
	}
	return c.CreateMessage(ctx, p)
}

// Elicit asks the host's user for input (elicitation/create).
func Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	c := mcpconn.CallerFrom(ctx)
	if c == nil {
		return mcpconn.Decline("elicitation: " + ErrNoHost.Error()), nil
	}
	return c.Elicit(ctx, p)
}

// HostCapabilities tells the session's MCP connections what the serving
// host declared (serve calls it on the host's initialize): they declare
// sampling and elicitation only as far as the host can answer, and those
// that declared less are replaced. The channel says whether any was
// (then Refresh picks up the tools servers list only to such clients).
// Sessions on one Host share connections, which declare what any of their
// hosts declared; Close forgets this session's.
func (s *Session) HostCapabilities(caps *mcp.ClientCapabilities) <-chan bool {
	return s.host.mgr.DeclareHost(s, caps)
}

// agentModelCaller is the Caller of a call to a server whose sampling the
// agent's own model answers (server { sampling = "model" }): its
// sampling/createMessage goes to that model, and the rest (progress, log
// messages, elicitation) to the host of the call, when there is one.
type agentModelCaller struct {
	host  mcpconn.Caller // nil: no host made the call
	agent string
	model func() (model.Model, string, error)
}

func (c agentModelCaller) WantsProgress() bool { return c.host != nil && c.host.WantsProgress() }

// Host is the host of the call, if it can tell (mcpconn.HostOf).
func (c agentModelCaller) Host() any {
	if h, ok := c.host.(mcpconn.HostOf); ok {
		return h.Host()
	}
	return nil
}

func (c agentModelCaller) Progress(ctx context.Context, progress, total float64, message string) {
	if c.host != nil {
		c.host.Progress(ctx, progress, total, message)
	}
}

func (c agentModelCaller) Log(ctx context.Context, p *mcp.LoggingMessageParams) {
	if c.host != nil {
		c.host.Log(ctx, p)
	}
}

func (c agentModelCaller) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	m, name, err := c.model()
	if err != nil {
		return nil, fmt.Errorf("sampling: the server's sampling is answered by the model of agent %q: %w", c.agent, err)
	}
	return model.AnswerSampling(ctx, m, name, p)
}

func (c agentModelCaller) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if c.host == nil {
		return mcpconn.Decline("elicitation: " + ErrNoHost.Error()), nil
	}
	return c.host.Elicit(ctx, p)
}

// ownModel is the agent's own model (its model, else defaults.model) and
// the provider's name for it; an agent with neither has none to answer.
func (st *agentState) ownModel() (model.Model, string, error) {
	name := st.agent.Model
	if name == "" {
		name = st.s.reg.Defaults.Model
	}
	if name == "" {
		return nil, "", errors.New("the agent has no model (model = model.NAME or defaults { model = … })")
	}
	m, err := st.s.opts.models.get(name)
	if err != nil {
		return nil, "", err
	}
	if d := st.s.reg.Model(name); d != nil {
		if n, err := d.ModelName.Resolve(st.s.opts.Getenv); err == nil {
			name = n
		}
	}
	return m, name, nil
}

// ListRoots asks the host of the call for its roots. Only a host of the
// stateless revision can be asked from inside a call (an input-required
// round); otherwise it is an error.
func ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	c, ok := mcpconn.CallerFrom(ctx).(interface {
		ListRoots(context.Context) (*mcp.ListRootsResult, error)
	})
	if !ok {
		return nil, errors.New("roots: the host of this call cannot be asked for its roots")
	}
	return c.ListRoots(ctx)
}

// ContinueAsTask says the call goes on as a task from here: a host of the
// stateless revision that declared the Tasks extension, calling a tool
// declared with task = "after_input", has been asked the call's questions
// so far in input-required rounds and now gets a task it polls; what the
// call asks later goes through the task. For any other call it does
// nothing and the call goes on as it is.
func ContinueAsTask(ctx context.Context) error {
	if c, ok := mcpconn.CallerFrom(ctx).(interface{ ContinueAsTask(context.Context) error }); ok {
		return c.ContinueAsTask(ctx)
	}
	return nil
}
