package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller is the host a call came from, when the agent is served over MCP:
// what an upstream server sends while the call runs (progress, log
// messages, sampling and elicitation requests) goes back to it. A call
// without one (the agent's own CLI, `run`) has nobody to ask.
type Caller interface {
	// WantsProgress: the host sent a progress token with its call.
	WantsProgress() bool
	// Progress reports progress under the host's own token.
	Progress(ctx context.Context, progress, total float64, message string)
	// Log passes on a log message.
	Log(ctx context.Context, p *mcp.LoggingMessageParams)
	CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

type callerKey struct{}

// WithCaller returns ctx carrying the host of a call.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the host of the call ctx belongs to, or nil.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// Who answers an upstream server's sampling and elicitation requests
// (Config.Sampling, Config.Elicitation).
const (
	AnswerHost  = "host"  // the host that made the call (the default)
	AnswerModel = "model" // sampling only: the agent's own model, which the caller of each call stands for
	AnswerDeny  = "deny"  // refused; the capability is not declared
)

// ErrNoHost is why a request from a server cannot be answered: no host
// made the call it belongs to (the agent runs on its own).
var ErrNoHost = errors.New("the agent runs without a host to ask (not served over MCP), so nobody can answer")

// calls are the calls in flight on one connection that have a host:
// progress notifications find theirs by the token the call was sent with,
// and log messages and requests go to the most recent one (stdio carries
// no link between a server's request and the call that caused it). Log
// messages between calls go to the host of the last call.
type calls struct {
	mu    sync.Mutex
	next  uint64
	byID  map[uint64]Caller
	order []uint64 // in the order the calls started
	last  Caller
}

func (cs *calls) add(c Caller) uint64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.byID == nil {
		cs.byID = map[uint64]Caller{}
	}
	cs.next++
	cs.byID[cs.next] = c
	cs.order = append(cs.order, cs.next)
	cs.last = c
	return cs.next
}

func (cs *calls) remove(id uint64) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.byID, id)
	for i, o := range cs.order {
		if o == id {
			cs.order = append(cs.order[:i], cs.order[i+1:]...)
			break
		}
	}
}

func (cs *calls) byToken(token any) Caller {
	var id uint64
	switch t := token.(type) {
	case string:
		n, err := strconv.ParseUint(t, 10, 64)
		if err != nil {
			return nil
		}
		id = n
	case float64:
		id = uint64(t)
	default:
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.byID[id]
}

func (cs *calls) latest() Caller {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.order) == 0 {
		return nil
	}
	return cs.byID[cs.order[len(cs.order)-1]]
}

// progressSettle is how long a call with a progress token waits after its
// result for the progress notifications that came before it.
const progressSettle = 5 * time.Millisecond

// progressToken is what the call with id is sent upstream with.
func progressToken(id uint64) string { return strconv.FormatUint(id, 10) }

// clientOptions are the handlers and capabilities of the runtime's client
// for this server: it declares sampling and elicitation only when someone
// can answer (the host declared them and the server's policy lets it ask,
// or the agent's model answers sampling), and no roots.
func (s *server) clientOptions() *mcp.ClientOptions {
	host := s.m.hostCapabilities()
	caps := &mcp.ClientCapabilities{}
	opts := &mcp.ClientOptions{
		Capabilities:                caps,
		ToolListChangedHandler:      s.onListChanged,
		PromptListChangedHandler:    s.onPromptListChanged,
		ResourceListChangedHandler:  s.onResourceListChanged,
		ResourceUpdatedHandler:      s.onResourceUpdated,
		ProgressNotificationHandler: s.onProgress,
		LoggingMessageHandler:       s.onLog,
	}
	switch sampling := s.cfg.Sampling; {
	case sampling == AnswerDeny:
	case sampling == AnswerModel:
		// The runtime gives each call a Caller whose CreateMessage asks
		// the calling agent's model (or says it has none).
		caps.Sampling = &mcp.SamplingCapabilities{}
		opts.CreateMessageHandler = s.onCreateMessage
	case host != nil && host.Sampling != nil:
		caps.Sampling = &mcp.SamplingCapabilities{}
		opts.CreateMessageHandler = s.onCreateMessage
	}
	if s.cfg.Elicitation != AnswerDeny && host != nil && host.Elicitation != nil {
		e := *host.Elicitation
		caps.Elicitation = &e
		opts.ElicitationHandler = s.onElicit
	}
	return opts
}

// declared is what a session connected with these options declared, to
// see when the host's capabilities call for another connection.
func declared(o *mcp.ClientOptions) string {
	return fmt.Sprintf("sampling=%t elicitation=%t", o.Capabilities.Sampling != nil, o.Capabilities.Elicitation != nil)
}

func (s *server) onProgress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	p := req.Params
	if c := s.calls.byToken(p.ProgressToken); c != nil {
		c.Progress(ctx, p.Progress, p.Total, p.Message)
	}
}

func (s *server) onLog(ctx context.Context, req *mcp.LoggingMessageRequest) {
	c := s.calls.latest()
	if c == nil {
		s.calls.mu.Lock()
		c = s.calls.last
		s.calls.mu.Unlock()
	}
	if c != nil {
		c.Log(ctx, req.Params)
		return
	}
	s.log.Debug("server.log", "level", string(req.Params.Level), "logger", req.Params.Logger)
}

func (s *server) onCreateMessage(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	c := s.calls.latest()
	if c == nil {
		return nil, fmt.Errorf("sampling/createMessage from server %q: %w", s.cfg.Name, ErrNoHost)
	}
	return c.CreateMessage(ctx, req.Params)
}

func (s *server) onElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	c := s.calls.latest()
	if c == nil {
		return Decline(fmt.Sprintf("server %q asked for input: %v", s.cfg.Name, ErrNoHost)), nil
	}
	return c.Elicit(ctx, req.Params)
}

// Decline is the answer to an elicitation nobody can answer: declined,
// with the reason in _meta for a server that logs it.
func Decline(reason string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "decline", Meta: mcp.Meta{"toolgen.dev/reason": reason}}
}
