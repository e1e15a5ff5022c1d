package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/builtin"
	"github.com/toolgen-dev/toolgen/runtime/internal/pipeline"
	"github.com/toolgen-dev/toolgen/runtime/internal/telemetry"
)

// entry returns the callable entry of a pool tool: its queue, timeout,
// cache and how it runs. It holds nothing of a session: every session of
// the pool shares it (with workdir, which a builtin's description names),
// and what a call needs of its session (upstream connections, builtins,
// environment) the call finds in the agent context it runs on (sessionRun).
func (p *Pool) entry(pt *PoolTool, workdir string) *entry {
	key := entryKey{pt, workdir}
	if e, ok := p.entries.Load(key); ok {
		return e.(*entry)
	}
	e, _ := p.entries.LoadOrStore(key, p.newEntry(pt, workdir))
	return e.(*entry)
}

// entryKey keys the pool's shared entries.
type entryKey struct {
	pt      *PoolTool
	workdir string
}

func (p *Pool) newEntry(pt *PoolTool, workdir string) *entry {
	reg := p.reg
	e := &entry{
		info: ToolInfo{Name: pt.Name, Description: pt.Description, InputSchema: pipeline.NormalizeSchema(pt.InputSchema),
			Kind: pt.Kind, Namespace: string(pt.Kind),
			Title: pt.Title, Annotations: pt.Annotations, OutputSchema: pt.OutputSchema, Meta: pt.Meta, Needs: pt.Needs},
		server: pt.Server, original: pt.Original, args: pt.args,
	}
	d := pt.Decl
	srv := p.servers[pt.Server]
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
	e.q = p.queues[qname]
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
		e.via, e.linked = p.builtinRun(e, d, workdir), true
	case decl.KindREST:
		e.via, e.linked = restRun(d), true
		e.info.Namespace = "rest"
	case decl.KindMCP:
		e.via, e.linked, e.upstream = upstreamRun(pt.Server, pt.Original), true, true
		e.info.Namespace = pt.Server
		if srv != nil {
			e.cacheTTL = srv.Cache
		}
	default:
		e.run = failing(fmt.Errorf("tool %q: unknown kind %q", pt.Name, pt.Kind))
	}
	return e.finish()
}

// sessionRun runs a shared entry's tool on the agent context of the call.
type sessionRun func(st *agentState, ctx context.Context, args json.RawMessage) (pipeline.Output, error)

func failing(err error) provider {
	return func(context.Context, json.RawMessage) (string, error) { return "", err }
}

// upstreamCall runs tool on an MCP server, connecting lazily. The
// server's result passes on whole: every block, structured content and
// _meta; a result with isError is the call's error, its text the result's.
func upstreamRun(server, tool string) sessionRun {
	return func(st *agentState, ctx context.Context, args json.RawMessage) (pipeline.Output, error) {
		up, err := st.upstream(ctx, server)
		if err != nil {
			return pipeline.Output{}, err
		}
		ctx, span, err := st.upstreamOpen(ctx, up, server, tool)
		if err != nil {
			return pipeline.Output{}, err
		}
		var res UpstreamResult
		if taskCalls != nil { // linked by runtime/tasks: a host's task call may go as a task (taskcall.go)
			var created bool
			if res, created, err = taskCalls(ctx, up, server, tool, args); created {
				span.End("", false)
				return pipeline.TaskCreated, nil
			}
		} else {
			res, err = up.Call(ctx, tool, args)
		}
		return upstreamOutput(span, res, err)
	}
}

// upstreamOpen is what comes before a call to an upstream tool: a tool
// the server's list withholds is refused; a server whose sampling the
// agent's model answers gets that caller; the upstream span starts.
func (st *agentState) upstreamOpen(ctx context.Context, up Upstream, server, tool string) (context.Context, telemetry.Upstream, error) {
	if why := st.s.pool.withheld(server, tool, up.Tools()); why != "" {
		return ctx, telemetry.Upstream{}, errors.New(why)
	}
	if st.modelAnswers(server) {
		ctx = mcpconn.WithCaller(ctx, agentModelCaller{host: mcpconn.CallerFrom(ctx), agent: st.agent.Name, model: st.ownModel})
	}
	ctx, span := st.s.tel.StartUpstream(ctx, server, tool)
	return ctx, span, nil
}

// modelAnswers reports whether the agent's own model answers server's
// sampling requests, rather than the host.
func (st *agentState) modelAnswers(server string) bool {
	srv := st.s.pool.servers[server]
	return srv != nil && srv.Sampling == mcpconn.AnswerModel
}

// upstreamOutput ends the upstream span and makes the server's answer the
// tool's output.
func upstreamOutput(span telemetry.Upstream, res UpstreamResult, err error) (pipeline.Output, error) {
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

// builtinRun runs the policy's builtin on the agent context of the call.
// Each policy's builtin is built once per context, on its first call, and
// kept until teardown: it holds os.Root handles of that context.
func (p *Pool) builtinRun(e *entry, d *decl.Tool, workdir string) sessionRun {
	if d == nil {
		return failingRun(fmt.Errorf("tool %q: no policy", e.info.Name))
	}
	var pol *decl.Policy
	for i := range p.reg.Policies {
		if p.reg.Policies[i].Name == d.Policy {
			pol = &p.reg.Policies[i]
		}
	}
	if pol == nil {
		return failingRun(fmt.Errorf("tool %q: unknown policy %q", e.info.Name, d.Policy))
	}
	if scope := builtin.Scope(pol.Builtin, workdir, pol.AllowedPaths, pol.AllowedCommands); scope != "" {
		e.info.Description = strings.TrimSpace(e.info.Description + "\n\n" + scope)
	}
	if pol.Builtin == "shell_exec" && pol.Timeout > 0 {
		// the shell kills the command and its processes at the policy timeout; the
		// pipeline's own deadline only backs it up
		e.timeout = max(e.timeout, pol.Timeout+time.Second)
	}
	if len(d.InputSchema) == 0 {
		e.info.InputSchema = p.declaredSchema(d)
	}
	name := e.info.Name
	return func(st *agentState, ctx context.Context, args json.RawMessage) (pipeline.Output, error) {
		tool, err := st.builtin(pol)
		if err != nil {
			return pipeline.Output{}, fmt.Errorf("tool %q (policy %s): %v", name, pol.Name, err)
		}
		out, err := tool.Call(ctx, args)
		return pipeline.TextOutput(out), err
	}
}

// builtin returns the agent context's builtin of a policy, building it on
// first use.
func (st *agentState) builtin(pol *decl.Policy) (builtinTool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	b, ok := st.builtins[pol.Name]
	if !ok && st.torndown { // teardown already ran the closers: a new builtin would leak
		return nil, errors.New("agent context closed")
	}
	if !ok {
		b.tool, b.err = st.s.newBuiltin(pol)
		if c, isCloser := b.tool.(io.Closer); isCloser && b.err == nil {
			st.closers = append(st.closers, c.Close)
		}
		if st.builtins == nil {
			st.builtins = map[string]builtInstance{}
		}
		st.builtins[pol.Name] = b
	}
	return b.tool, b.err
}

func failingRun(err error) sessionRun {
	return func(*agentState, context.Context, json.RawMessage) (pipeline.Output, error) {
		return pipeline.Output{}, err
	}
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
		sh := builtin.NewShell(pol.AllowedCommands, pol.Timeout, pol.MaxOutputBytes, wd)
		sh.SetLimits(builtin.ShellLimits{Processes: pol.MaxProcesses, Memory: int64(pol.MaxMemoryMiB) << 20, CPUTime: pol.MaxCPUTime})
		return sh, nil
	}
	return nil, fmt.Errorf("unknown builtin %q", pol.Builtin)
}

// restRun runs a REST tool with its env() values as the session reads
// them; a missing variable fails the call with an error naming the tool
// and the variable. The compiled tool (its URL template parsed) is shared
// by the sessions that read the same values (Pool.restTool).
func restRun(d *decl.Tool) sessionRun {
	if d == nil || d.REST == nil {
		return failingRun(fmt.Errorf("REST tool without a rest block"))
	}
	return func(st *agentState, ctx context.Context, args json.RawMessage) (pipeline.Output, error) {
		tool, err := st.s.pool.restTool(d, st.s.opts.Getenv, st.s.opts.HTTPClient)
		if err != nil {
			return pipeline.Output{}, err
		}
		out, err := tool.Call(ctx, args)
		return pipeline.TextOutput(out), err
	}
}

// restKey keys the pool's compiled REST tools: the declaration, the
// client and the resolved URL and headers.
type restKey struct {
	d        *decl.Tool
	client   *http.Client
	resolved string
}

// restTool returns the compiled REST tool for d with the values getenv
// gives now.
func (p *Pool) restTool(d *decl.Tool, getenv func(string) (string, bool), client *http.Client) (RESTTool, error) {
	if compileREST == nil {
		return nil, fmt.Errorf("tool %q: REST tools are not linked into this binary (import %s; toolgen generate does for a spec with a rest block)", d.Name, restPackage)
	}
	url, err := d.REST.URL.Resolve(getenv)
	if err != nil {
		return nil, fmt.Errorf("tool %q: url: %v", d.Name, err)
	}
	spec := RESTSpec{Method: d.REST.Method, URL: url, InputSchema: d.InputSchema}
	key := url
	for _, h := range d.REST.Headers {
		v, err := h.Value.Resolve(getenv)
		if err != nil {
			return nil, fmt.Errorf("tool %q: header %s: %v", d.Name, h.Key, err)
		}
		spec.Headers = append(spec.Headers, [2]string{h.Key, v})
		key += "\x00" + h.Key + "\x00" + v
	}
	k := restKey{d, client, key}
	if t, ok := p.rest.Load(k); ok {
		return t.(RESTTool), nil
	}
	spec.Secrets = d.REST.URL.FromEnv(getenv)
	for _, h := range d.REST.Headers {
		spec.Secrets = append(spec.Secrets, h.Value.FromEnv(getenv)...)
	}
	tool, err := compileREST(spec, client)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %v", d.Name, err)
	}
	t, _ := p.rest.LoadOrStore(k, tool)
	return t.(RESTTool), nil
}
