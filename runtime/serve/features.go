package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// FeatureSession is a Session that also offers prompts and resources;
// *runtime.Session is one. A Server whose session is one advertises the
// prompts, resources (with subscriptions) and completions capabilities.
type FeatureSession interface {
	Prompts(ctx context.Context) []*mcp.Prompt
	GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error)
	Resources(ctx context.Context) []*mcp.Resource
	ResourceTemplates(ctx context.Context) []*mcp.ResourceTemplate
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
	SubscribeResource(ctx context.Context, uri string, fn func(uri string)) (cancel func(), err error)
	Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error)
}

var _ FeatureSession = (*runtime.Session)(nil)

// featureSyncTimeout bounds one sync of the prompt and resource lists
// (upstream lists are cached; a slow server delays only the next sync).
const featureSyncTimeout = 30 * time.Second

// features keeps the go-sdk server's prompts, resources and templates equal
// to the session's, so that go-sdk lists (and pages) them and sends
// prompts/list_changed and resources/list_changed when they change. Gets,
// reads and subscriptions go to the session, which alone decides what the
// agent offers.
type features struct {
	sess   FeatureSession
	agent  func() string // the session's current agent
	mcp    *mcp.Server
	logger interface{ Warn(string, ...any) }

	listed map[string]string // "p:"+name, "r:"+uri, "t:"+template → JSON as listed; guarded by Server.mu

	subMu     sync.Mutex
	subs      map[string]*subscription // by URI
	subsAgent string                   // the agent the subscriptions were made on
}

type subscription struct {
	cancel func()
	n      int // host sessions subscribed
}

// featureOptions sets the capabilities and handlers prompts and resources
// need, when the session offers them.
func featureOptions(sess Session, opts *mcp.ServerOptions, f **features) {
	fs, ok := sess.(FeatureSession)
	if !ok {
		return
	}
	ft := &features{sess: fs, agent: sess.Agent, listed: map[string]string{}, subs: map[string]*subscription{}}
	*f = ft
	opts.Capabilities.Prompts = &mcp.PromptCapabilities{ListChanged: true}
	opts.Capabilities.Resources = &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true}
	opts.Capabilities.Completions = &mcp.CompletionCapabilities{}
	opts.SubscribeHandler = ft.subscribe
	opts.UnsubscribeHandler = ft.unsubscribe
	opts.CompletionHandler = ft.complete
}

// sync brings the go-sdk server's lists in line; Server.mu is held.
func (f *features) sync() {
	ctx, cancel := context.WithTimeout(context.Background(), featureSyncTimeout)
	defer cancel()
	f.resubscribe(ctx)
	seen := map[string]bool{}
	changed := func(key string, v any) bool {
		seen[key] = true
		b, _ := json.Marshal(v)
		if f.listed[key] == string(b) {
			return false
		}
		f.listed[key] = string(b)
		return true
	}
	for _, p := range f.sess.Prompts(ctx) {
		if changed("p:"+p.Name, p) {
			f.mcp.AddPrompt(p, f.getPrompt)
		}
	}
	for _, r := range f.sess.Resources(ctx) {
		if !absoluteURI(r.URI) {
			f.logger.Warn("serve.resource_skipped", "uri", r.URI, "reason", "not an absolute URI")
			continue
		}
		if changed("r:"+r.URI, r) {
			f.mcp.AddResource(r, f.readResource)
		}
	}
	for _, t := range f.sess.ResourceTemplates(ctx) {
		if changed("t:"+t.URITemplate, t) {
			f.mcp.AddResourceTemplate(t, f.readResource)
		}
	}
	var prompts, resources, templates []string
	for key := range f.listed {
		if seen[key] {
			continue
		}
		delete(f.listed, key)
		switch key[:2] {
		case "p:":
			prompts = append(prompts, key[2:])
		case "r:":
			resources = append(resources, key[2:])
		case "t:":
			templates = append(templates, key[2:])
		}
	}
	if len(prompts) > 0 {
		f.mcp.RemovePrompts(prompts...)
	}
	if len(resources) > 0 {
		f.mcp.RemoveResources(resources...)
	}
	if len(templates) > 0 {
		f.mcp.RemoveResourceTemplates(templates...)
	}
}

func absoluteURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != ""
}

func (f *features) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	res, err := f.sess.GetPrompt(ctx, req.Params.Name, req.Params.Arguments)
	if errors.Is(err, runtime.ErrPromptNotFound) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return res, nil
}

func (f *features) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	res, err := f.sess.ReadResource(ctx, req.Params.URI)
	if errors.Is(err, runtime.ErrResourceNotFound) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return res, nil
}

// subscribe starts one upstream subscription per URI, however many host
// sessions ask; go-sdk remembers which of them to notify.
func (f *features) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	f.subMu.Lock()
	defer f.subMu.Unlock()
	if s := f.subs[uri]; s != nil {
		s.n++
		return nil
	}
	if f.subsAgent == "" {
		f.subsAgent = f.agent()
	}
	cancel, err := f.sess.SubscribeResource(ctx, uri, f.updated)
	if errors.Is(err, runtime.ErrResourceNotFound) {
		return mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return err
	}
	f.subs[uri] = &subscription{cancel: cancel, n: 1}
	return nil
}

func (f *features) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	f.subMu.Lock()
	defer f.subMu.Unlock()
	if s := f.subs[uri]; s != nil {
		if s.n--; s.n == 0 {
			s.cancel()
			delete(f.subs, uri)
		}
	}
	return nil
}

func (f *features) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res, err := f.sess.Complete(ctx, req.Params)
	if errors.Is(err, runtime.ErrPromptNotFound) || errors.Is(err, runtime.ErrResourceNotFound) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	return res, err
}

// resubscribe moves the hosts' subscriptions to the session's new agent
// after a Switch (the old agent's ended with it): each URI the new agent
// offers is subscribed again; the others are dropped, and stay quiet.
func (f *features) resubscribe(ctx context.Context) {
	f.subMu.Lock()
	defer f.subMu.Unlock()
	agent := f.agent()
	if agent == f.subsAgent {
		return
	}
	f.subsAgent = agent
	for uri, s := range f.subs {
		s.cancel()
		cancel, err := f.sess.SubscribeResource(ctx, uri, f.updated)
		if err != nil {
			f.logger.Warn("serve.subscription_dropped", "uri", uri, "agent", agent, "reason", err.Error())
			delete(f.subs, uri)
			continue
		}
		s.cancel = cancel
	}
}

// updated passes an upstream notifications/resources/updated on to the
// host sessions subscribed to it.
func (f *features) updated(uri string) {
	_ = f.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
}

// close ends every upstream subscription.
func (f *features) close() {
	f.subMu.Lock()
	defer f.subMu.Unlock()
	for uri, s := range f.subs {
		s.cancel()
		delete(f.subs, uri)
	}
}
