package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/prompts"
	"github.com/toolgen-dev/toolgen/runtime/internal/resources"
)

// Prompts and resources of a session: the ones its agent declares in
// tools.use and those of the trusted servers it uses directly or through
// a direct bundle, cut by the servers' allow/deny lists and the agent's
// tools.allowed. Untrusted servers and meta bundles bring none. Values are
// MCP's own types, passed through as the servers send them.

// Event names of prompts and resources.
const (
	EventPromptCollision   = event.PromptCollision   // two prompts wanted one exposed name; the loser is not offered
	EventPromptBlocked     = event.PromptBlocked     // prompts/get of a name the agent does not offer
	EventResourceCollision = event.ResourceCollision // two servers claim one URI; the loser's is not offered
	EventResourceBlocked   = event.ResourceBlocked   // a read or subscribe of a URI the agent does not offer
	EventFeaturesFailed    = event.FeaturesFailed    // a server's prompt or resource list could not be read
)

var (
	// ErrPromptNotFound: the agent offers no prompt of that name.
	ErrPromptNotFound = prompts.ErrNotFound
	// ErrResourceNotFound: the agent offers no resource at that URI.
	ErrResourceNotFound = resources.ErrNotFound
)

// Prompts lists the prompts the agent offers, sorted by name.
func (s *Session) Prompts(ctx context.Context) []*mcp.Prompt {
	_, set, _, done := s.featureSets(ctx)
	defer done()
	if set == nil {
		return nil
	}
	return set.List(ctx)
}

// GetPrompt renders a prompt the agent offers; any other name (denied,
// unknown, guessed) is ErrPromptNotFound.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	_, set, _, done := s.featureSets(ctx)
	defer done()
	if set == nil {
		return nil, errClosed
	}
	res, err := set.Get(ctx, name, args)
	if err != nil {
		return nil, s.scrubErr(err)
	}
	for _, m := range res.Messages {
		if m != nil {
			s.scrubContent(m.Content)
		}
	}
	return res, nil
}

// Resources lists the resources the agent offers, sorted by URI.
func (s *Session) Resources(ctx context.Context) []*mcp.Resource {
	_, _, set, done := s.featureSets(ctx)
	defer done()
	if set == nil {
		return nil
	}
	return set.List(ctx)
}

// ResourceTemplates lists the resource templates the agent offers.
func (s *Session) ResourceTemplates(ctx context.Context) []*mcp.ResourceTemplate {
	_, _, set, done := s.featureSets(ctx)
	defer done()
	if set == nil {
		return nil
	}
	return set.Templates(ctx)
}

// ReadResource reads a resource the agent offers (listed, or made from one
// of its templates); any other URI is ErrResourceNotFound.
func (s *Session) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	_, _, set, done := s.featureSets(ctx)
	defer done()
	if set == nil {
		return nil, errClosed
	}
	res, err := set.Read(ctx, uri)
	if err != nil {
		return nil, s.scrubErr(err)
	}
	for _, c := range res.Contents {
		if c != nil {
			c.Text = s.scrub.String(c.Text)
		}
	}
	return res, nil
}

// SubscribeResource runs fn with the URI each time the server owning a
// resource the agent offers says it changed. The subscription ends with
// cancel or when the agent context is torn down (Switch, Close).
func (s *Session) SubscribeResource(ctx context.Context, uri string, fn func(uri string)) (cancel func(), err error) {
	st, _, set, done := s.featureSets(ctx)
	defer done()
	if set == nil {
		return nil, errClosed
	}
	stop, err := set.Subscribe(ctx, uri, func(u string) {
		if st.ctx.Err() == nil {
			fn(u)
		}
	})
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	if st.torndown {
		st.mu.Unlock()
		stop()
		return nil, errClosed
	}
	st.closers = append(st.closers, func() error { stop(); return nil })
	st.mu.Unlock()
	return stop, nil
}

// Complete answers completion/complete for an argument of a prompt or
// resource template the agent offers, asking the server it comes from.
func (s *Session) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	_, ps, rs, done := s.featureSets(ctx)
	defer done()
	if ps == nil {
		return nil, errClosed
	}
	if params == nil || params.Ref == nil {
		return nil, errors.New("completion needs a ref")
	}
	if params.Ref.Type == "ref/resource" {
		return rs.Complete(ctx, params)
	}
	return ps.Complete(ctx, params)
}

// scrubContent removes the spec's env() values from the text of a prompt
// message, as from tool results. Binary data is left as it is.
func (s *Session) scrubContent(c mcp.Content) {
	switch c := c.(type) {
	case *mcp.TextContent:
		c.Text = s.scrub.String(c.Text)
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			c.Resource.Text = s.scrub.String(c.Resource.Text)
		}
	}
}

// scrubErr is err with the spec's env() values removed, keeping
// errors.Is for the not-found errors.
func (s *Session) scrubErr(err error) error {
	msg := s.scrub.String(err.Error())
	if msg == err.Error() {
		return err
	}
	for _, target := range []error{ErrPromptNotFound, ErrResourceNotFound} {
		if errors.Is(err, target) {
			return fmt.Errorf("%w: %s", target, strings.TrimPrefix(msg, target.Error()+": "))
		}
	}
	return errors.New(msg)
}

// featureSource is an Upstream that passes on prompts and resources.
type featureSource interface {
	prompts.Source
	resources.Source
	OnFeaturesChanged(fn func()) (cancel func())
}

func (u *mcpUpstream) features() featureSource { return u.c }

// featureServers lists the trusted servers whose prompts and resources
// use entries bring: used directly, or through a direct bundle.
func (p *Pool) featureServers(uses []decl.Use) []string {
	var out []string
	for _, u := range uses {
		server := ""
		switch u.Kind {
		case decl.UseServer:
			server = u.Name
		case decl.UseBundle:
			if b := p.bundles[u.Name]; b != nil && b.Mode != "meta" {
				server = b.Server
			}
		}
		if srv := p.servers[server]; srv != nil && srv.Trusted && !slices.Contains(out, server) {
			out = append(out, server)
		}
	}
	slices.Sort(out)
	return out
}

// featureSets builds the agent's prompt and resource sets on the current
// agent context, connecting its servers if needed; done exits the context.
// All are nil after Close.
func (s *Session) featureSets(ctx context.Context) (*agentState, *prompts.Set, *resources.Set, func()) {
	st, err := s.enter(ctx, s.st.Load())
	if err != nil {
		return nil, nil, nil, func() {}
	}
	a := st.agent
	// Inside a workflow step only the step's bundles are in force: their
	// servers' prompts and resources, not the agent's own tools.use.
	uses := a.Use
	st.mu.Lock()
	if st.step != nil {
		uses = stepUses(st.step.bundles)
	}
	st.mu.Unlock()
	first := func(key string) bool { _, seen := s.pool.warned.LoadOrStore("collision\x00"+key, true); return !seen }
	ps := &prompts.Set{Sep: s.reg.Sep(), Log: st.log, First: first, Admits: func(name string) bool { return agentAdmits(a, decl.Match, name) }}
	rs := &resources.Set{Log: st.log, First: first, Admits: func(name, uri string) bool { return agentAdmits(a, decl.MatchURI, name, uri) }, Skills: s.skillsOf(ctx, st)}
	rs.ReadSkill = func(ctx context.Context, sk *decl.Skill, f *decl.SkillFile) ([]byte, string, error) {
		return s.readSkillFile(ctx, st, sk, f)
	}
	for _, u := range uses {
		switch u.Kind {
		case decl.UsePrompt:
			if i := slices.IndexFunc(s.reg.Prompts, func(p decl.Prompt) bool { return p.Name == u.Name }); i >= 0 {
				ps.Declared = append(ps.Declared, &s.reg.Prompts[i])
			}
		case decl.UseResource:
			if i := slices.IndexFunc(s.reg.Resources, func(r decl.Resource) bool { return r.Name == u.Name }); i >= 0 {
				rs.Declared = append(rs.Declared, &s.reg.Resources[i])
			}
		}
	}
	for _, name := range s.pool.featureServers(uses) {
		srv := s.pool.servers[name]
		up, err := st.upstream(ctx, name)
		var src featureSource
		if err == nil {
			if fs, ok := up.(interface{ features() featureSource }); ok {
				src = fs.features()
				st.watchFeatures(name, src)
			}
		}
		var pf, rf decl.Filter
		pf.Add(srv.AllowPrompts, srv.DenyPrompts)
		rf.Add(srv.AllowResources, srv.DenyResources)
		ps.Servers = append(ps.Servers, prompts.Server{Name: name, Source: src, Filter: pf})
		rs.Servers = append(rs.Servers, resources.Server{Name: name, Source: src, Filter: rf})
	}
	return st, ps, rs, st.exit
}

// stepUses are the use entries in force while a workflow step is active:
// the step's bundles, not the agent's own tools.use.
func stepUses(bundles []string) []decl.Use {
	uses := make([]decl.Use, len(bundles))
	for i, b := range bundles {
		uses[i] = decl.Use{Kind: decl.UseBundle, Name: b}
	}
	return uses
}

// watchFeatures passes a server's prompts/list_changed and
// resources/list_changed on to the session's subscribers, once per server
// and agent context.
func (st *agentState) watchFeatures(server string, src featureSource) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.torndown || slices.Contains(st.featureWatch, server) {
		return
	}
	st.featureWatch = append(st.featureWatch, server)
	cancel := src.OnFeaturesChanged(func() {
		if st.ctx.Err() == nil {
			st.s.notify()
		}
	})
	st.closers = append(st.closers, func() error { cancel(); return nil })
}

// agentAdmits applies tools.allowed to a prompt (by exposed name) or a
// resource (by name or URI): exact entries and the generated switch by
// name, globs with match. Without tools.allowed everything in use is in.
func agentAdmits(a *decl.Agent, match func(pattern, name string) bool, names ...string) bool {
	if a.Allowed == nil {
		return true
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if a.Allow != nil && a.Allow(n) {
			return true
		}
		for _, p := range a.Allowed {
			if p == n || (decl.IsGlob(p) && match(p, n)) {
				return true
			}
		}
	}
	return false
}
