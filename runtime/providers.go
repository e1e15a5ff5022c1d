package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/builtin"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/internal/rest"
)

// poolEntry makes the callable entry of a pool tool for this agent
// context: its provider, queue, timeout and cache. st.mu is held.
func (st *agentState) poolEntry(pt *PoolTool) *entry {
	reg := st.s.reg
	e := &entry{
		info: ToolInfo{Name: pt.Name, Description: pt.Description, InputSchema: pipeline.NormalizeSchema(pt.InputSchema),
			Kind: pt.Kind, Namespace: string(pt.Kind),
			Title: pt.Title, Annotations: pt.Annotations, OutputSchema: pt.OutputSchema, Meta: pt.Meta},
		server: pt.Server, original: pt.Original, args: pt.args,
	}
	d := pt.Decl
	srv := st.s.pool.servers[pt.Server]
	qname := ""
	if d != nil {
		qname, e.timeout = d.Queue, d.Timeout
	}
	if srv != nil {
		if qname == "" {
			qname = srv.Queue
		}
		if e.timeout <= 0 {
			e.timeout = srv.Timeout
		}
	}
	if e.timeout <= 0 {
		e.timeout = reg.Defaults.ToolTimeout
	}
	e.q = st.s.pool.queues[qname]
	e.structured = len(pt.OutputSchema) > 0 && pt.Kind != decl.KindMCP
	if len(pt.OutputSchema) > 0 && pt.Kind == decl.KindMCP {
		e.output = pipeline.NewArgSchema(pt.OutputSchema)
	}
	e.richGo = d != nil && d.RichResult && pt.Kind == decl.KindGo
	switch pt.Kind {
	case decl.KindGo:
		if d != nil && d.Go != nil {
			e.goFn = d.Go
		} else {
			e.run = failing(fmt.Errorf("tool %q: Go function not linked into this binary", pt.Name))
		}
	case decl.KindBuiltin:
		e.run, e.linked = st.builtinProvider(e, d), true
	case decl.KindREST:
		e.run, e.linked = st.restProvider(d), true
		e.info.Namespace = "rest"
	case decl.KindMCP:
		e.rich, e.linked = st.upstreamCall(pt.Server, pt.Original), true
		e.info.Namespace = pt.Server
		if srv != nil {
			e.cacheTTL = srv.Cache
		}
	default:
		e.run = failing(fmt.Errorf("tool %q: unknown kind %q", pt.Name, pt.Kind))
	}
	return e.finish()
}

func failing(err error) provider {
	return func(context.Context, json.RawMessage) (string, error) { return "", err }
}

// upstreamCall runs tool on an MCP server, connecting lazily. The
// server's result passes on whole: every block, structured content and
// _meta; a result with isError is the call's error, its text the result's.
func (st *agentState) upstreamCall(server, tool string) richProvider {
	byModel := false
	if srv := st.s.pool.servers[server]; srv != nil && srv.Sampling == mcpconn.AnswerModel {
		byModel = true
	}
	return func(ctx context.Context, args json.RawMessage) (pipeline.Output, error) {
		up, err := st.upstream(ctx, server)
		if err != nil {
			return pipeline.Output{}, err
		}
		if why := st.s.pool.withheld(server, tool, up.Tools()); why != "" {
			return pipeline.Output{}, errors.New(why)
		}
		if byModel {
			ctx = mcpconn.WithCaller(ctx, agentModelCaller{host: mcpconn.CallerFrom(ctx), agent: st.agent.Name, model: st.ownModel})
		}
		ctx, span := st.s.tel.StartUpstream(ctx, server, tool)
		res, err := up.Call(ctx, tool, args)
		if err != nil {
			span.End(err.Error(), false)
			return pipeline.Output{}, err
		}
		span.End("", res.IsError)
		out := pipeline.RichOutput(res)
		if res.IsError {
			return out, errors.New(out.Text)
		}
		return out, nil
	}
}

// declaredSchema is a declared tool's input schema. A builtin tool
// declares none: its schema is its builtin's, so that tool_describe,
// tool_load and search see the arguments before the tool is built.
func (p *Pool) declaredSchema(t *decl.Tool) json.RawMessage {
	if t.Kind != decl.KindBuiltin || len(t.InputSchema) > 0 {
		return t.InputSchema
	}
	for i := range p.reg.Policies {
		if pol := &p.reg.Policies[i]; pol.Name == t.Policy {
			switch pol.Builtin {
			case "fs_read":
				return (&builtin.FSRead{}).Schema()
			case "fs_write":
				return (&builtin.FSWrite{}).Schema()
			case "shell_exec":
				return builtin.NewShell(pol.AllowedCommands, pol.Timeout, pol.MaxOutputBytes, "").Schema()
			}
		}
	}
	return t.InputSchema
}

// builtinTool is what runtime/internal/builtin's tools share.
type builtinTool interface {
	Call(ctx context.Context, args json.RawMessage) (string, error)
	Schema() json.RawMessage
}

// builtinProvider runs the policy's builtin for this agent context. Each
// policy's builtin is built once per context and kept until teardown: an
// entry dropped by a step change and rebuilt later must not open new
// os.Root handles each time.
func (st *agentState) builtinProvider(e *entry, d *decl.Tool) provider {
	if d == nil {
		return failing(fmt.Errorf("tool %q: no policy", e.info.Name))
	}
	var pol *decl.Policy
	for i := range st.s.reg.Policies {
		if st.s.reg.Policies[i].Name == d.Policy {
			pol = &st.s.reg.Policies[i]
		}
	}
	if pol == nil {
		return failing(fmt.Errorf("tool %q: unknown policy %q", e.info.Name, d.Policy))
	}
	if scope := builtin.Scope(pol.Builtin, st.s.opts.Workdir, pol.AllowedPaths, pol.AllowedCommands); scope != "" {
		e.info.Description = strings.TrimSpace(e.info.Description + "\n\n" + scope)
	}
	b, ok := st.builtins[pol.Name]
	if !ok && st.torndown { // teardown already ran the closers: a new builtin would leak
		return failing(fmt.Errorf("tool %q: agent context closed", e.info.Name))
	}
	if !ok {
		b.tool, b.err = st.s.newBuiltin(pol)
		if c, isCloser := b.tool.(io.Closer); isCloser && b.err == nil {
			st.closers = append(st.closers, c.Close)
		}
		st.builtins[pol.Name] = b
	}
	if b.err != nil {
		return failing(fmt.Errorf("tool %q (policy %s): %v", e.info.Name, pol.Name, b.err))
	}
	tool := b.tool
	if pol.Builtin == "shell_exec" && pol.Timeout > 0 {
		// the shell kills the command and its processes at the policy timeout; the
		// pipeline's own deadline only backs it up
		e.timeout = max(e.timeout, pol.Timeout+time.Second)
	}
	if len(d.InputSchema) == 0 {
		e.info.InputSchema = tool.Schema()
	}
	return tool.Call
}

// builtInstance is a policy's builtin as built for one agent context.
type builtInstance struct {
	tool builtinTool
	err  error
}

// newBuiltin builds a policy's builtin, confined to its paths under
// Options.Workdir.
func (s *Session) newBuiltin(pol *decl.Policy) (builtinTool, error) {
	wd := s.opts.Workdir
	switch pol.Builtin {
	case "fs_read":
		return builtin.NewFSRead(wd, pol.AllowedPaths, pol.MaxOutputBytes, pol.AllowHardlinks)
	case "fs_write":
		return builtin.NewFSWrite(wd, pol.AllowedPaths, pol.AllowHardlinks)
	case "shell_exec":
		return builtin.NewShell(pol.AllowedCommands, pol.Timeout, pol.MaxOutputBytes, wd), nil
	}
	return nil, fmt.Errorf("unknown builtin %q", pol.Builtin)
}

// restProvider builds a REST tool with its env() values read now, when
// the agent context is built; a missing variable makes every call fail
// with an error naming the tool and the variable.
func (st *agentState) restProvider(d *decl.Tool) provider {
	if d == nil || d.REST == nil {
		return failing(fmt.Errorf("REST tool without a rest block"))
	}
	getenv := st.s.opts.Getenv
	url, err := d.REST.URL.Resolve(getenv)
	if err != nil {
		return failing(fmt.Errorf("tool %q: url: %v", d.Name, err))
	}
	spec := rest.Spec{Method: d.REST.Method, URL: url, InputSchema: d.InputSchema,
		Secrets: d.REST.URL.FromEnv(getenv)}
	for _, h := range d.REST.Headers {
		v, err := h.Value.Resolve(getenv)
		if err != nil {
			return failing(fmt.Errorf("tool %q: header %s: %v", d.Name, h.Key, err))
		}
		spec.Headers = append(spec.Headers, rest.Header{Key: h.Key, Value: v})
		spec.Secrets = append(spec.Secrets, h.Value.FromEnv(getenv)...)
	}
	tool, err := rest.New(spec, st.s.opts.HTTPClient)
	if err != nil {
		return failing(fmt.Errorf("tool %q: %v", d.Name, err))
	}
	return tool.Call
}
