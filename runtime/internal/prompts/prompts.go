// Package prompts is an agent's prompts: the ones it declares and those
// of the servers it uses, under the same policy as its tools. A server's
// prompt is exposed as <server><sep><prompt>; a declared one by its name.
package prompts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/servers"
)

// Source is one server's prompts (*mcpconn.Conn is one).
type Source interface {
	Prompts(ctx context.Context) ([]*mcp.Prompt, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error)
	Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error)
}

// Server is a server whose prompts the agent sees, with the server's
// allow_prompts/deny_prompts.
type Server = servers.Server[Source]

// Set is the prompts one agent may see and get.
type Set struct {
	Declared []*decl.Prompt // in use, by name
	Servers  []Server       // sorted by name: the first wins a name collision
	Sep      string
	Admits   func(name string) bool // the agent's tools.allowed
	Log      *slog.Logger
	// First reports whether a collision is news (logged once per key);
	// nil: always.
	First func(key string) bool
}

// ErrNotFound is the answer for a prompt the agent does not offer, whether
// it exists or not.
var ErrNotFound = errors.New("prompt not found")

// entry is one exposed prompt and where it comes from.
type entry struct {
	prompt   *mcp.Prompt
	declared *decl.Prompt
	server   *Server
	original string
}

// entries lists what the agent sees, sorted by exposed name. A server
// whose list cannot be read is skipped with an event.
func (s *Set) entries(ctx context.Context) []entry {
	var out []entry
	taken := map[string]string{} // exposed name → its owner, for collisions
	for _, p := range s.Declared {
		if !s.Admits(p.Name) {
			continue
		}
		taken[p.Name] = "prompt." + p.Name
		out = append(out, entry{prompt: declaredPrompt(p), declared: p})
	}
	servers.EachListed(ctx, s.Log, s.Servers, "prompts", Source.Prompts, func(srv *Server, p *mcp.Prompt) {
		if p == nil || !srv.Filter.Permits(p.Name) {
			return
		}
		name := decl.ExposedName(srv.Name, s.Sep, p.Name)
		if !s.Admits(name) {
			return
		}
		if owner, dup := taken[name]; dup {
			if s.First == nil || s.First("prompt\x00"+name+"\x00"+srv.Name) {
				event.Emit(s.Log, slog.LevelWarn, event.PromptCollision, slog.String("prompt", name),
					slog.String("winner", owner), slog.String("loser", "server."+srv.Name+" prompt "+p.Name))
			}
			return
		}
		taken[name] = "server." + srv.Name + " prompt " + p.Name
		exposed := *p
		exposed.Name = name
		out = append(out, entry{prompt: &exposed, server: srv, original: p.Name})
	})
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.prompt.Name, b.prompt.Name) })
	return out
}

// List is what prompts/list answers, sorted by name.
func (s *Set) List(ctx context.Context) []*mcp.Prompt {
	return servers.Answer(s.entries(ctx), func(e entry) *mcp.Prompt { return e.prompt })
}

// find resolves an exposed name among what the agent sees; a name it does
// not see is ErrNotFound with the nearest names, and a prompt.blocked event.
func (s *Set) find(ctx context.Context, name string) (entry, error) {
	es := s.entries(ctx)
	names := make([]string, len(es))
	for i, e := range es {
		if e.prompt.Name == name {
			return e, nil
		}
		names[i] = e.prompt.Name
	}
	event.Emit(s.Log, slog.LevelWarn, event.PromptBlocked, slog.String("prompt", name))
	msg := fmt.Sprintf("%q", name)
	if near := didyoumean.Nearest(name, names, 3); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", near[0])
	}
	return entry{}, fmt.Errorf("%w: %s", ErrNotFound, msg)
}

// Get answers prompts/get: a declared prompt with its placeholders filled
// in, a server's prompt from the server, unchanged.
func (s *Set) Get(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	e, err := s.find(ctx, name)
	if err != nil {
		return nil, err
	}
	if e.declared != nil {
		return fill(e.declared, args)
	}
	return e.server.Source.GetPrompt(ctx, e.original, args)
}

// Complete answers completion/complete for an argument of a prompt the
// agent sees: a server's prompt asks its server (with the server's own
// name); a declared prompt completes nothing.
func (s *Set) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	e, err := s.find(ctx, params.Ref.Name)
	if err != nil {
		return nil, err
	}
	if e.declared != nil {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	up := *params
	ref := *params.Ref
	ref.Name = e.original
	up.Ref = &ref
	return e.server.Source.Complete(ctx, &up)
}

func declaredPrompt(p *decl.Prompt) *mcp.Prompt {
	out := &mcp.Prompt{Name: p.Name, Description: p.Description}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return out
}

// fill renders a declared prompt: every required argument present, no
// argument it does not declare.
func fill(p *decl.Prompt, args map[string]string) (*mcp.GetPromptResult, error) {
	for name := range args {
		if !slices.ContainsFunc(p.Arguments, func(a decl.PromptArgument) bool { return a.Name == name }) {
			names := make([]string, len(p.Arguments))
			for i, a := range p.Arguments {
				names[i] = a.Name
			}
			return nil, fmt.Errorf("prompt %q has no argument %q (it takes %s)", p.Name, name, strings.Join(quote(names), ", "))
		}
	}
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, fmt.Errorf("prompt %q: argument %q is required", p.Name, a.Name)
		}
	}
	res := &mcp.GetPromptResult{Description: p.Description}
	for _, m := range p.Messages {
		res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: &mcp.TextContent{Text: decl.FillPlaceholders(m.Text, args)}})
	}
	return res, nil
}

func quote(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}
