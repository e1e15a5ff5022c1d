package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's prompts and resources, for agents that pass them on: lists
// fetched on first use and kept until the server says they changed or
// reconnects, prompts/get, resources/read, completion/complete, and
// resource subscriptions shared by every holder of the connection.

// features caches one connected session's prompt and resource lists.
type features struct {
	mu        sync.Mutex
	cs        *mcp.ClientSession // the session the lists came from
	gen       uint64             // server.featureGen when they were fetched
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	have      [3]bool // prompts, resources, templates fetched
}

// subscriptions are a server's resource subscriptions: one upstream
// resources/subscribe per URI, whatever the number of holders listening.
type subscriptions struct {
	mu     sync.Mutex
	byURI  map[string]map[uint64]func(string)
	nextID uint64
}

// session returns the live client session, or why there is none.
func (c *Conn) session() (*mcp.ClientSession, error) {
	l := c.s.live.Load()
	if l == nil {
		return nil, fmt.Errorf("server %q is unavailable: %v", c.s.cfg.Name, c.s.downErr())
	}
	return l.cs, nil
}

// Capabilities are what the server declared in its initialize result; nil
// while it is down.
func (c *Conn) Capabilities() *mcp.ServerCapabilities {
	cs, err := c.session()
	if err != nil || cs.InitializeResult() == nil {
		return nil
	}
	return cs.InitializeResult().Capabilities
}

// list fetches one of the cached lists (i: 0 prompts, 1 resources, 2
// templates) unless it is cached for the current session, then runs read
// on the cache, under its lock.
func (c *Conn) list(ctx context.Context, i int, fetch func(*mcp.ClientSession) error, read func(*features)) error {
	cs, err := c.session()
	if err != nil {
		return err
	}
	f := &c.s.features
	f.mu.Lock()
	defer f.mu.Unlock()
	if gen := c.s.featureGen.Load(); f.cs != cs || f.gen != gen {
		f.cs, f.gen, f.have = cs, gen, [3]bool{}
		f.prompts, f.resources, f.templates = nil, nil, nil
	}
	if !f.have[i] {
		if err := fetch(cs); err != nil {
			return fmt.Errorf("server %q: %s", c.s.cfg.Name, c.s.redact(err.Error()))
		}
		f.have[i] = true
	}
	read(f)
	return nil
}

// Prompts is the server's prompts/list (every page); nil for a server
// without prompts. The slice is shared: do not modify it.
//
// The lists are asked for whatever the server's capabilities say: a server
// may start without prompts or resources, not declare them, and add some
// later (the go-sdk infers its capabilities from what it has at
// initialize); one that has none answers "method not found".
func (c *Conn) Prompts(ctx context.Context) ([]*mcp.Prompt, error) {
	var out []*mcp.Prompt
	err := c.list(ctx, 0, func(cs *mcp.ClientSession) error {
		var list []*mcp.Prompt
		for p, err := range cs.Prompts(ctx, nil) {
			if notFound(err) {
				break
			}
			if err != nil {
				return err
			}
			list = append(list, p)
		}
		c.s.features.prompts = list
		return nil
	}, func(f *features) { out = f.prompts })
	return out, err
}

// Resources is the server's resources/list (every page); nil for a server
// without resources. The slice is shared.
func (c *Conn) Resources(ctx context.Context) ([]*mcp.Resource, error) {
	var out []*mcp.Resource
	err := c.list(ctx, 1, func(cs *mcp.ClientSession) error {
		var list []*mcp.Resource
		for r, err := range cs.Resources(ctx, nil) {
			if notFound(err) {
				break
			}
			if err != nil {
				return err
			}
			list = append(list, r)
		}
		c.s.features.resources = list
		return nil
	}, func(f *features) { out = f.resources })
	return out, err
}

// ResourceTemplates is the server's resources/templates/list (every page).
// The slice is shared.
func (c *Conn) ResourceTemplates(ctx context.Context) ([]*mcp.ResourceTemplate, error) {
	var out []*mcp.ResourceTemplate
	err := c.list(ctx, 2, func(cs *mcp.ClientSession) error {
		var list []*mcp.ResourceTemplate
		for t, err := range cs.ResourceTemplates(ctx, nil) {
			if notFound(err) {
				break
			}
			if err != nil {
				return err
			}
			list = append(list, t)
		}
		c.s.features.templates = list
		return nil
	}, func(f *features) { out = f.templates })
	return out, err
}

// GetPrompt runs prompts/get with the server's own prompt name.
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	cs, err := c.session()
	if err != nil {
		return nil, err
	}
	if caller := CallerFrom(ctx); caller != nil {
		// A server may ask the host while it renders the prompt.
		id := c.s.calls.add(caller)
		defer c.s.calls.remove(id)
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("server %q: prompt %q: %w", c.s.cfg.Name, name, c.redactErr(err))
	}
	return res, nil
}

// ReadResource runs resources/read.
func (c *Conn) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	cs, err := c.session()
	if err != nil {
		return nil, err
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("server %q: resource %q: %w", c.s.cfg.Name, uri, c.redactErr(err))
	}
	return res, nil
}

// Complete runs completion/complete; a server without the completions
// capability completes nothing (an empty result, not an error).
func (c *Conn) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	cs, err := c.session()
	if err != nil {
		return nil, err
	}
	if caps := c.Capabilities(); caps == nil || caps.Completions == nil {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	res, err := cs.Complete(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("server %q: completion: %w", c.s.cfg.Name, c.redactErr(err))
	}
	return res, nil
}

// SubscribeResource asks the server for notifications/resources/updated
// about uri and runs fn (on a connection goroutine) with the URI of each.
// Holders share one upstream subscription per URI; the returned func drops
// this one, and the last one unsubscribes upstream.
func (c *Conn) SubscribeResource(ctx context.Context, uri string, fn func(uri string)) (cancel func(), err error) {
	cs, err := c.session()
	if err != nil {
		return nil, err
	}
	if caps := c.Capabilities(); caps == nil || caps.Resources == nil || !caps.Resources.Subscribe {
		return nil, fmt.Errorf("server %q does not support resource subscriptions", c.s.cfg.Name)
	}
	subs := &c.s.subs
	subs.mu.Lock()
	first := len(subs.byURI[uri]) == 0
	subs.mu.Unlock()
	if first {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			return nil, fmt.Errorf("server %q: subscribe %q: %w", c.s.cfg.Name, uri, c.redactErr(err))
		}
	}
	subs.mu.Lock()
	if subs.byURI == nil {
		subs.byURI = map[string]map[uint64]func(string){}
	}
	if subs.byURI[uri] == nil {
		subs.byURI[uri] = map[uint64]func(string){}
	}
	subs.nextID++
	id := subs.nextID
	subs.byURI[uri][id] = fn
	subs.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			subs.mu.Lock()
			delete(subs.byURI[uri], id)
			last := len(subs.byURI[uri]) == 0
			if last {
				delete(subs.byURI, uri)
			}
			subs.mu.Unlock()
			if cs, err := c.session(); last && err == nil {
				ctx, stop := context.WithTimeout(context.Background(), refreshTimeout)
				defer stop()
				_ = cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
			}
		})
	}, nil
}

// OnFeaturesChanged runs fn (on its own goroutine) after the server's
// prompt or resource lists changed: prompts/list_changed,
// resources/list_changed, or a reconnect. Release unregisters it.
func (c *Conn) OnFeaturesChanged(fn func()) (cancel func()) {
	id := c.s.addFeatureListener(fn)
	c.mu.Lock()
	c.listeners = append(c.listeners, id)
	c.mu.Unlock()
	return func() { c.s.removeListener(id) }
}

// notFound reports a server's "method not found" answer: it has no such list.
func notFound(err error) bool {
	var rpcErr *jsonrpc.Error
	return errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeMethodNotFound
}

func (c *Conn) redactErr(err error) error { return fmt.Errorf("%s", c.s.redact(err.Error())) }

func (s *server) addFeatureListener(fn func()) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onFeatures == nil {
		s.onFeatures = map[uint64]func(){}
	}
	s.nextID++
	s.onFeatures[s.nextID] = fn
	return s.nextID
}

// onFeaturesChanged drops the cached lists and tells the holders. It
// never waits for a fetch in progress: it may run on the goroutine that
// reads that fetch's answer.
func (s *server) onFeaturesChanged() {
	s.featureGen.Add(1)
	s.mu.Lock()
	fns := make([]func(), 0, len(s.onFeatures))
	for _, fn := range s.onFeatures {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	if len(fns) > 0 {
		go func() {
			for _, fn := range fns {
				fn()
			}
		}()
	}
}

func (s *server) onPromptListChanged(context.Context, *mcp.PromptListChangedRequest) {
	s.onFeaturesChanged()
}

func (s *server) onResourceListChanged(context.Context, *mcp.ResourceListChangedRequest) {
	s.onFeaturesChanged()
}

// onResourceUpdated passes notifications/resources/updated to the holders
// subscribed to its URI.
func (s *server) onResourceUpdated(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	if req == nil || req.Params == nil {
		return
	}
	uri := req.Params.URI
	s.subs.mu.Lock()
	fns := make([]func(string), 0, len(s.subs.byURI[uri]))
	for _, fn := range s.subs.byURI[uri] {
		fns = append(fns, fn)
	}
	s.subs.mu.Unlock()
	for _, fn := range fns {
		fn(uri)
	}
}

// resubscribe renews the subscriptions on a new session after a
// reconnect: the old session's died with it.
func (s *server) resubscribe(cs *mcp.ClientSession) {
	s.subs.mu.Lock()
	uris := make([]string, 0, len(s.subs.byURI))
	for uri := range s.subs.byURI {
		uris = append(uris, uri)
	}
	s.subs.mu.Unlock()
	for _, uri := range uris {
		ctx, stop := context.WithTimeout(s.lifeCtx, refreshTimeout)
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil && s.lifeCtx.Err() == nil {
			s.log.Warn("server.resubscribe_failed", "uri", uri, "reason", s.redact(err.Error()))
		}
		stop()
	}
}
