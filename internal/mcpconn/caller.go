package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	asked map[uint64]int // sampling and elicitation requests per call
	order []uint64       // in the order the calls started
	last  Caller
	// the server's requests in the current minute
	minute      time.Time
	askedMinute int
}

// Limits on what one server may ask the host: a server that floods it
// with sampling or elicitation requests (hundreds in one call) is refused
// past them.
const (
	MaxAsksPerCall   = 8
	MaxAsksPerMinute = 30
)

// ask returns the host to ask for the latest call, counting the request,
// or why it is refused.
func (cs *calls) ask(now time.Time) (Caller, string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.order) == 0 {
		return nil, ""
	}
	id := cs.order[len(cs.order)-1]
	if cs.severalHosts() {
		return nil, "calls of several hosts are running on this server, and its request does not say which call it belongs to"
	}
	if cs.asked[id] >= MaxAsksPerCall {
		return nil, fmt.Sprintf("more than %d sampling and elicitation requests in one tool call", MaxAsksPerCall)
	}
	if now.Sub(cs.minute) >= time.Minute {
		cs.minute, cs.askedMinute = now, 0
	}
	if cs.askedMinute >= MaxAsksPerMinute {
		return nil, fmt.Sprintf("more than %d sampling and elicitation requests in a minute", MaxAsksPerMinute)
	}
	if cs.asked == nil {
		cs.asked = map[uint64]int{}
	}
	cs.asked[id]++
	cs.askedMinute++
	return cs.byID[id], ""
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
	delete(cs.asked, id)
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
// or the agent's model answers sampling), and no roots. It always declares
// the Skills extension, which it speaks (skills.go): under SEP-2133 each
// side names the extensions it supports, and a server may serve skills
// only to clients that do.
func (s *server) clientOptions() *mcp.ClientOptions {
	host := s.m.hostCapabilities()
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(SkillsExtension, nil)
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

// declaration is what a session declared it can answer.
type declaration struct{ sampling, elicitation bool }

// declared is what a session connected with these options declared, to
// see when the host's capabilities call for another connection.
func declared(o *mcp.ClientOptions) declaration {
	return declaration{o.Capabilities.Sampling != nil, o.Capabilities.Elicitation != nil}
}

// lacks reports whether a session that declared d cannot pass on what
// want declares. Declaring more than the hosts can answer costs nothing (a
// request no host can answer is refused), while replacing a connection
// costs its tools for a moment and, with hosts coming and going (stateless
// requests), would replace it again and again.
func (d declaration) lacks(want declaration) bool {
	return want.sampling && !d.sampling || want.elicitation && !d.elicitation
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
	c, refused := s.calls.ask(time.Now())
	if refused != "" {
		s.log.Warn("server.ask_refused", "server", s.cfg.Name, "method", "sampling/createMessage", "reason", refused)
		return nil, fmt.Errorf("sampling/createMessage from server %q refused: %s", s.cfg.Name, refused)
	}
	if c == nil {
		return nil, fmt.Errorf("sampling/createMessage from server %q: %w", s.cfg.Name, ErrNoHost)
	}
	p := req.Params
	p.SystemPrompt = plainText(p.SystemPrompt)
	for _, m := range p.Messages {
		if m == nil {
			continue
		}
		if tc, ok := m.Content.(*mcp.TextContent); ok {
			tc.Text = plainText(tc.Text)
		}
	}
	p.Meta = s.namedMeta(p.Meta)
	return c.CreateMessage(ctx, p)
}

func (s *server) onElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	c, refused := s.calls.ask(time.Now())
	if refused != "" {
		s.log.Warn("server.ask_refused", "server", s.cfg.Name, "method", "elicitation/create", "reason", refused)
		return Decline(fmt.Sprintf("server %q asked for input: refused: %s", s.cfg.Name, refused)), nil
	}
	if c == nil {
		return Decline(fmt.Sprintf("server %q asked for input: %v", s.cfg.Name, ErrNoHost)), nil
	}
	p := req.Params
	// The user reads this: who asks comes first, in the agent's words.
	p.Message = fmt.Sprintf("MCP server %q asks: %s", s.cfg.Name, plainText(p.Message))
	p.Meta = s.namedMeta(p.Meta)
	return c.Elicit(ctx, p)
}

// namedMeta adds the asking server's name to a request's _meta.
func (s *server) namedMeta(m mcp.Meta) mcp.Meta {
	out := make(mcp.Meta, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out["toolgen.dev/server"] = s.cfg.Name
	return out
}

// plainText drops what a terminal or a host's UI would act on rather than
// show: ANSI escape sequences (CSI, OSC and the rest), C0 controls but tab
// and newline, DEL and C1 controls.
func plainText(text string) string {
	if !strings.ContainsFunc(text, isControl) {
		return text
	}
	var b strings.Builder
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[': // CSI: parameters, then a final byte
			i += 2
			for i < len(rs) && (rs[i] < 0x40 || rs[i] > 0x7e) {
				i++
			}
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == ']': // OSC: up to BEL or ESC \
			i += 2
			for i < len(rs) && rs[i] != 0x07 && !(rs[i] == 0x1b && i+1 < len(rs) && rs[i+1] == '\\') {
				i++
			}
			if i < len(rs) && rs[i] == 0x1b {
				i++
			}
		case r == 0x1b && i+1 < len(rs): // a two-byte escape
			i++
		case isControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f)
}

// Decline is the answer to an elicitation nobody can answer: declined,
// with the reason in _meta for a server that logs it.
func Decline(reason string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "decline", Meta: mcp.Meta{"toolgen.dev/reason": reason}}
}
