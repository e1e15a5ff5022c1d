// Package resources is an agent's resources and resource templates: the
// ones it declares and those of the servers it uses, under the same policy
// as its tools. URIs pass through unchanged; when two servers list one
// URI the first (declared resources, then servers by name) wins. A URI
// only templates match goes to the most specific template; templates of
// two servers equally specific refuse it.
package resources

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/servers"
	"github.com/yosida95/uritemplate/v3"
)

// Source is one server's resources (*mcpconn.Conn is one).
type Source interface {
	Resources(ctx context.Context) ([]*mcp.Resource, error)
	ResourceTemplates(ctx context.Context) ([]*mcp.ResourceTemplate, error)
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
	SubscribeResource(ctx context.Context, uri string, fn func(uri string)) (cancel func(), err error)
	Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error)
}

// Server is a server whose resources the agent sees, with the server's
// allow_resources/deny_resources.
type Server = servers.Server[Source]

// Set is the resources one agent may see and read.
type Set struct {
	Declared []*decl.Resource // in use, by name
	// Skills are the agent's skills, whose files are resources at
	// skill://<skill>/<path>: using the skill is what admits them, so
	// tools.allowed does not cut them.
	Skills []*decl.Skill
	// ReadSkill is a skill file's verified bytes and MIME type (an
	// upstream skill's come from its server).
	ReadSkill func(ctx context.Context, sk *decl.Skill, f *decl.SkillFile) ([]byte, string, error)
	Servers   []Server                    // sorted by name: the first wins a URI claimed twice
	Admits    func(name, uri string) bool // the agent's tools.allowed
	Log       *slog.Logger
	// First reports whether a collision is news (logged once per key);
	// nil: always.
	First func(key string) bool
}

// ErrNotFound is the answer for a URI the agent does not offer, whether a
// server has it or not.
var ErrNotFound = errors.New("resource not found")

// Permits applies a server's allow/deny lists to a resource: allow
// entries admit it by name or URI, deny entries refuse it by either.
func Permits(f decl.Filter, name, uri string) bool {
	match := func(list []string) bool {
		return (name != "" && decl.MatchAnyURI(list, name)) || decl.MatchAnyURI(list, uri)
	}
	for _, a := range f.Allows {
		if len(a) > 0 && !match(a) {
			return false
		}
	}
	return !match(f.Deny)
}

type entry struct {
	resource *mcp.Resource
	declared *decl.Resource
	skill    *decl.SkillFile
	skillOf  *decl.Skill
	server   *Server
}

type templateEntry struct {
	template *mcp.ResourceTemplate
	compiled *uritemplate.Template
	server   *Server
}

// entries lists the resources the agent sees, sorted by URI.
func (s *Set) entries(ctx context.Context) []entry {
	var out []entry
	taken := map[string]string{}
	for _, sk := range s.Skills {
		for i := range sk.Files {
			f := &sk.Files[i]
			r := &mcp.Resource{URI: f.URI(sk.Path()), Name: sk.Name + "/" + f.Path, MIMEType: f.MIMEType, Size: f.Size}
			if f.Path == decl.SkillFileName {
				// SEP-2640: SKILL.md carries the skill's own name and description.
				r.Name, r.Description = sk.OwnName(), sk.Description
			}
			if _, dup := taken[r.URI]; dup {
				// A declared skill "up" with a file release-notes/SKILL.md
				// and server up's skill release-notes share a URI; the
				// skill listed first (declared ones are) keeps it.
				continue
			}
			taken[r.URI] = "skill." + sk.Name
			out = append(out, entry{resource: r, skill: f, skillOf: sk})
		}
	}
	for _, r := range s.Declared {
		if !s.Admits(r.Name, r.URI) {
			continue
		}
		taken[r.URI] = "resource." + r.Name
		out = append(out, entry{resource: &mcp.Resource{Name: r.Name, URI: r.URI, Description: r.Description, MIMEType: r.MIMEType, Size: int64(len(r.Text))}, declared: r})
	}
	servers.EachListed(ctx, s.Log, s.Servers, "resources", Source.Resources, func(srv *Server, r *mcp.Resource) {
		if r == nil || !Permits(srv.Filter, r.Name, r.URI) || !s.Admits("", r.URI) {
			return
		}
		if strings.HasPrefix(r.URI, decl.SkillScheme) {
			return // a server's skill files reach agents as its skills, under allow_skills
		}
		if owner, dup := taken[r.URI]; dup {
			if owner != "server."+srv.Name && (s.First == nil || s.First("resource\x00"+r.URI+"\x00"+srv.Name)) {
				event.Emit(s.Log, slog.LevelWarn, event.ResourceCollision, slog.String("uri", r.URI),
					slog.String("winner", owner), slog.String("loser", "server."+srv.Name))
			}
			return
		}
		taken[r.URI] = "server." + srv.Name
		out = append(out, entry{resource: r, server: srv})
	})
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.resource.URI, b.resource.URI) })
	return out
}

// templates lists the resource templates the agent sees, in server order.
func (s *Set) templates(ctx context.Context) []templateEntry {
	var out []templateEntry
	servers.EachListed(ctx, s.Log, s.Servers, "resource templates", Source.ResourceTemplates, func(srv *Server, t *mcp.ResourceTemplate) {
		if t == nil || !Permits(srv.Filter, t.Name, t.URITemplate) || !s.Admits("", t.URITemplate) {
			return
		}
		compiled, err := uritemplate.New(t.URITemplate)
		if err != nil {
			return // a template no URI can be matched against
		}
		out = append(out, templateEntry{template: t, compiled: compiled, server: srv})
	})
	return out
}

// List is what resources/list answers, sorted by URI.
func (s *Set) List(ctx context.Context) []*mcp.Resource {
	return servers.Answer(s.entries(ctx), func(e entry) *mcp.Resource { return e.resource })
}

// Templates is what resources/templates/list answers, sorted by template.
func (s *Set) Templates(ctx context.Context) []*mcp.ResourceTemplate {
	out := servers.Answer(s.templates(ctx), func(t templateEntry) *mcp.ResourceTemplate { return t.template })
	slices.SortStableFunc(out, func(a, b *mcp.ResourceTemplate) int { return strings.Compare(a.URITemplate, b.URITemplate) })
	return out
}

// owner finds who serves uri for the agent: a listed resource, or else the
// most specific template that matches it, of a server whose lists permit
// the URI itself (so deny_resources holds for URIs a template makes up).
// Anything else is ErrNotFound and a resource.blocked event.
func (s *Set) owner(ctx context.Context, uri string) (entry, error) {
	for _, e := range s.entries(ctx) {
		if e.resource.URI == uri {
			return e, nil
		}
	}
	var matches []templateEntry
	for _, t := range s.templates(ctx) {
		if strings.HasPrefix(uri, decl.SkillScheme) {
			break // skill files are only the listed skills' (allow_skills)
		}
		if t.compiled.Match(uri) == nil {
			continue
		}
		if Permits(t.server.Filter, "", uri) || permitsByTemplate(t.server.Filter, t.template, uri) {
			if s.Admits("", uri) || s.Admits("", t.template.URITemplate) {
				matches = append(matches, t)
			}
		}
	}
	if t, ok := s.mostSpecific(uri, matches); ok {
		return entry{resource: &mcp.Resource{URI: uri}, server: t.server}, nil
	}
	event.Emit(s.Log, slog.LevelWarn, event.ResourceBlocked, slog.String("uri", uri))
	return entry{}, fmt.Errorf("%w: %q", ErrNotFound, uri)
}

// mostSpecific picks the template with the most literal text among those
// matching uri, so that a server listing a catch-all (repo://{+path})
// cannot take the reads of another's repo://item/{id} by sorting first.
// When templates of two servers tie at the top, neither gets the read.
// Matches of more than one server are a resource.collision event.
func (s *Set) mostSpecific(uri string, matches []templateEntry) (templateEntry, bool) {
	if len(matches) == 0 {
		return templateEntry{}, false
	}
	best, tied := matches[0], false
	var names []string
	for _, t := range matches {
		if !slices.Contains(names, "server."+t.server.Name) {
			names = append(names, "server."+t.server.Name)
		}
		switch d := literalLen(t.template.URITemplate) - literalLen(best.template.URITemplate); {
		case d > 0:
			best, tied = t, false
		case d == 0 && t.server.Name != best.server.Name:
			tied = true
		}
	}
	if len(names) > 1 && (s.First == nil || s.First("template\x00"+uri)) {
		attrs := []slog.Attr{slog.String("uri", uri), slog.Any("servers", names)}
		if tied {
			attrs = append(attrs, slog.Bool("refused", true))
		} else {
			attrs = append(attrs, slog.String("winner", "server."+best.server.Name), slog.String("template", best.template.URITemplate))
		}
		event.Emit(s.Log, slog.LevelWarn, event.ResourceCollision, attrs...)
	}
	return best, !tied
}

// literalLen is how much of a URI template is literal text, outside its
// {expressions}: the measure of how specific it is.
func literalLen(tmpl string) int {
	n, depth := 0, 0
	for _, r := range tmpl {
		switch {
		case r == '{':
			depth++
		case r == '}' && depth > 0:
			depth--
		case depth == 0:
			n++
		}
	}
	return n
}

// permitsByTemplate admits a URI made from a template the allow lists name
// (by the template's name or URI template), unless a deny entry matches
// the URI itself.
func permitsByTemplate(f decl.Filter, t *mcp.ResourceTemplate, uri string) bool {
	return Permits(f, t.Name, t.URITemplate) && !decl.MatchAnyURI(f.Deny, uri)
}

// Read answers resources/read: a declared resource's text, or the owning
// server's answer, unchanged.
func (s *Set) Read(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	e, err := s.owner(ctx, uri)
	if err != nil {
		return nil, err
	}
	if r := e.declared; r != nil {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text}}}, nil
	}
	if f := e.skill; f != nil {
		data, mime, err := s.ReadSkill(ctx, e.skillOf, f)
		if err != nil {
			return nil, err
		}
		c := &mcp.ResourceContents{URI: uri, MIMEType: mime}
		if utf8.Valid(data) {
			c.Text = string(data)
		} else {
			c.Blob = data
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
	}
	return e.server.Source.ReadResource(ctx, uri)
}

// Subscribe answers resources/subscribe: fn runs on each update the owning
// server sends. Declared resources never change, so there is nothing to
// subscribe to upstream.
func (s *Set) Subscribe(ctx context.Context, uri string, fn func(uri string)) (cancel func(), err error) {
	e, err := s.owner(ctx, uri)
	if err != nil {
		return nil, err
	}
	if e.declared != nil || e.skill != nil {
		return func() {}, nil
	}
	return e.server.Source.SubscribeResource(ctx, uri, fn)
}

// Complete answers completion/complete for a resource template argument:
// the server whose template it is completes it.
func (s *Set) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	for _, t := range s.templates(ctx) {
		if t.template.URITemplate == params.Ref.URI {
			return t.server.Source.Complete(ctx, params)
		}
	}
	event.Emit(s.Log, slog.LevelWarn, event.ResourceBlocked, slog.String("uri", params.Ref.URI))
	return nil, fmt.Errorf("%w: no resource template %q", ErrNotFound, params.Ref.URI)
}
