package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one entry of a server's tools/list, with its input schema
// normalised to an object schema.
type Tool struct {
	Name        string
	Title       string
	Description string
	InputSchema json.RawMessage
	// OutputSchema, Annotations and Meta are the server's, unchanged.
	OutputSchema json.RawMessage
	Annotations  *mcp.ToolAnnotations
	Meta         mcp.Meta
	// Needs are the host capabilities the server lists the tool only to
	// (needs.go): a host without them cannot use it.
	Needs Needs
}

// Health of a connection.
type Health string

const (
	HealthGreen  Health = "green"  // up; the last ping answered in time
	HealthYellow Health = "yellow" // up, but the last ping was slow or missed
	HealthRed    Health = "red"    // down: died, or pings kept failing; reconnecting
)

// Conn is one holder's handle on a shared connection. Its methods are safe
// for concurrent use; Release it once when done.
type Conn struct {
	s        *server
	released atomic.Bool

	mu        sync.Mutex
	listeners []uint64
}

// Name is the server's name.
func (c *Conn) Name() string { return c.s.cfg.Name }

// Tools is the server's current tool list (every page). The slice is
// shared: do not modify it.
func (c *Conn) Tools() []Tool {
	if l := c.s.live.Load(); l != nil {
		return l.tools
	}
	return c.s.lastTools()
}

// Instructions is the server's instructions from the initialize handshake.
func (c *Conn) Instructions() string {
	if l := c.s.live.Load(); l != nil {
		return l.instructions
	}
	return ""
}

// Health is the connection's colour as health checks (and deaths) see it.
func (c *Conn) Health() Health { return c.s.getHealth() }

// Err says why the connection is down, or nil while it is up.
func (c *Conn) Err() error {
	if c.s.live.Load() != nil {
		return nil
	}
	return c.s.downErr()
}

// Call runs tools/call. A failure the tool reports is Result.IsError; err
// is for a server that is down, a transport failure or ctx ending (which
// sends notifications/cancelled to the server). When ctx carries the
// host's Caller, what the server sends during the call goes to it: its
// progress (under the host's token), log messages, sampling and
// elicitation requests.
func (c *Conn) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	return c.CallMeta(ctx, name, args, nil)
}

// CallMeta is Call with the request's _meta (the caller's trace context:
// traceparent, tracestate); nil sends none.
func (c *Conn) CallMeta(ctx context.Context, name string, args json.RawMessage, meta map[string]any) (Result, error) {
	s := c.s
	l := s.live.Load()
	if l == nil {
		return Result{}, fmt.Errorf("server %q is unavailable: %v", s.cfg.Name, s.downErr())
	}
	params := &mcp.CallToolParams{Name: name, Meta: meta}
	if len(args) > 0 {
		if !isObject(args) {
			return Result{}, fmt.Errorf("server %q: tool %q: arguments must be a JSON object", s.cfg.Name, name)
		}
		params.Arguments = args
	}
	l.inflight.Add(1)
	defer l.inflight.Add(-1)
	if caller := CallerFrom(ctx); caller != nil {
		id := s.calls.add(caller)
		defer s.calls.remove(id)
		if caller.WantsProgress() {
			m := make(mcp.Meta, len(meta)+1)
			for k, v := range meta {
				m[k] = v
			}
			m["progressToken"] = progressToken(id)
			params.Meta = m
			// go-sdk hands the result over as soon as it is read, and the
			// notifications read before it to a handler goroutine: a moment
			// lets the last progress reach the host before the result does.
			defer time.Sleep(progressSettle)
		}
	}
	var res Result
	var err error
	if l.lean != nil {
		res, err = l.lean.call(ctx, name, args, params.Meta)
	} else {
		var r *mcp.CallToolResult
		if r, err = l.cs.CallTool(ctx, params); err == nil {
			res = toResult(r)
		}
	}
	return s.answer(name, res, err)
}

// answer is a call's outcome as Call returns it.
func (s *server) answer(name string, res Result, err error) (Result, error) {
	if err != nil {
		return Result{}, fmt.Errorf("server %q: tool %q: %s", s.cfg.Name, name, s.redact(err.Error()))
	}
	return res, nil
}

// Async reports whether Forward would take a call now that wants no
// progress: the server is up on a lean stdio connection.
func (c *Conn) Async() bool {
	l := c.s.live.Load()
	return l != nil && l.lean != nil
}

// OnToolsChanged runs fn (on a connection goroutine) after the tool list
// changed: on tools/list_changed, after a reconnect found other tools, or
// when a server handed out down (AcquireRetrying) first comes up.
// The returned func unregisters it; Release unregisters all of them.
func (c *Conn) OnToolsChanged(fn func()) (cancel func()) {
	id := c.s.addListener(fn)
	c.mu.Lock()
	c.listeners = append(c.listeners, id)
	c.mu.Unlock()
	return func() { c.s.removeListener(id) }
}

// OnFail runs fn (on its own goroutine) when the server dies or its
// connection is lost, with the reason; reconnecting goes on as usual. The
// returned func unregisters it; Release unregisters all of them.
func (c *Conn) OnFail(fn func(error)) (cancel func()) {
	id := c.s.addFailListener(fn)
	c.mu.Lock()
	c.listeners = append(c.listeners, id)
	c.mu.Unlock()
	return func() { c.s.removeListener(id) }
}

// Release drops this handle; the last one closes the connection (and kills
// a stdio server's process group). Further calls are no-ops.
func (c *Conn) Release() {
	if !c.released.CompareAndSwap(false, true) {
		return
	}
	c.mu.Lock()
	ids := c.listeners
	c.listeners = nil
	c.mu.Unlock()
	for _, id := range ids {
		c.s.removeListener(id)
	}
	c.s.m.release(c.s)
}

func isObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

func sameTools(a, b []Tool) bool {
	return slices.EqualFunc(a, b, func(x, y Tool) bool {
		return x.Name == y.Name && x.Title == y.Title && x.Description == y.Description &&
			string(x.InputSchema) == string(y.InputSchema) && string(x.OutputSchema) == string(y.OutputSchema) &&
			reflect.DeepEqual(x.Annotations, y.Annotations) && reflect.DeepEqual(x.Meta, y.Meta) && x.Needs == y.Needs
	})
}

var errNotStarted = errors.New("not connected yet")
