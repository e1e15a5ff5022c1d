package agentcli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolgen-dev/toolgen/internal/gcfloor"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/builtin"
	"github.com/toolgen-dev/toolgen/runtime/internal/sessionagent"
	"github.com/toolgen-dev/toolgen/runtime/serve"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// errUsage marks a usage error already explained on stderr.
var errUsage = errors.New("usage")

// flags makes a command's flag set, printing its errors and help to stderr.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		for _, cmd := range commands {
			if cmd.name == name {
				fmt.Fprintf(c.stderr, "usage: %s %s %s\n  %s\n", c.prog(), name, cmd.args, cmd.help)
			}
		}
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags anywhere among the arguments (`call TOOL '{}' --agent
// a` works) and returns the positional ones; everything after "--" is
// positional.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, flag.ErrHelp
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseOr returns the exit code for a parse failure.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// parseFlags parses the command line of a command that takes flags only;
// false: stop with the exit code.
func (c *cli) parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	pos, err := parse(fs, args)
	if err != nil {
		return parseExit(err), false
	}
	if len(pos) > 0 {
		return c.usageErr(fs, "unexpected argument %q", pos[0]), false
	}
	return exitOK, true
}

func (c *cli) usageErr(fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(c.stderr, "%s %s: %s\n", c.prog(), fs.Name(), fmt.Sprintf(format, a...))
	fs.Usage()
	return exitUsage
}

func (c *cli) serve(args []string) int {
	fs := c.flags("serve")
	c.workdirFlag(fs)
	stdio := fs.Bool("stdio", false, "serve MCP over stdin/stdout (the default)")
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (host:port; port 0 picks one): MCP at /mcp, the status page at /ui/")
	ui := fs.String("ui", "", "with --stdio: serve the status page on `ADDR` (a loopback host:port) beside stdio")
	agent := fs.String("agent", "", "the agent to serve (default: the first)")
	authFlags := addServeAuthFlags(fs)
	storeFlags := addStoreFlags(fs)
	if code, ok := c.parseFlags(fs, args); !ok {
		return code
	}
	if storeFlags.given(fs) && *addr == "" {
		return c.usageErr(fs, "%v", errStoreNeedsHTTP)
	}
	rate, err := parseRateLimit(*storeFlags.rateLimit)
	if err != nil {
		return c.usageErr(fs, "%v", err)
	}
	if *stdio && *addr != "" {
		return c.usageErr(fs, "--stdio and --http exclude each other")
	}
	if *ui != "" && *addr != "" {
		return c.usageErr(fs, "--ui is for --stdio: --http serves the page on its own listener at /ui/")
	}
	if authFlags.set() && *addr == "" {
		return c.usageErr(fs, "--auth-* flags are for --http")
	}
	var shared store.Store
	if *addr != "" {
		if shared, err = c.openStore(storeFlags, c.logger(slog.LevelInfo)); err != nil {
			return c.fail(exitFail, err)
		}
		if shared != nil {
			defer shared.Close()
		}
		c.opts.Session.Store, c.opts.Session.RateLimit, c.opts.Session.BudgetWindow = shared, rate, *storeFlags.budgetWindow
	}
	w, err := c.startWatch(*addr != "" || *ui != "")
	if err != nil {
		return c.fail(exitFail, err)
	}
	w.shared = shared
	// The port is bound before any server starts: a port in use fails at
	// once, with nothing started.
	var ln net.Listener
	if *addr != "" {
		if ln, err = serve.Listen(*addr, authFlags.set()); err != nil {
			w.stop(c.opts.Session.Logger)
			return c.fail(exitFail, err)
		}
		defer ln.Close()
	}
	// Opened up front even for HTTP: a bad agent or environment fails
	// now, not at the first client, and its MCP connections stay up for
	// the clients' sessions to share.
	sess, so, err := c.open(*agent, slog.LevelInfo)
	if err != nil {
		w.stop(c.opts.Session.Logger)
		return c.fail(exitFail, err)
	}
	defer w.stop(so.Logger)
	defer sess.Close()
	defer w.leave()
	if err := checkPolicyPaths(c.reg, sess, so.Workdir); err != nil {
		return c.fail(exitFail, err)
	}
	if *addr != "" {
		// One session per HTTP client: loaded tools and memory are never
		// shared between two hosts. A client opens on the agent current
		// now, the one the page last switched to.
		authn, aerr := c.serveAuth(authFlags, sess.Agent(), so.Logger)
		if aerr != nil {
			return c.fail(exitFail, aerr)
		}
		var clients *serve.Clients
		followers := func() []sessionagent.Session { return clientSessions(clients) }
		clients = serve.NewClients(func(ctx context.Context) (serve.OwnedSession, error) {
			s, err := runtime.Open(ctx, c.reg, sess.Agent(), so) // on so.Host
			if err != nil {
				return nil, err
			}
			return s, nil
			// No Name: each client's serverInfo names the agent its session
			// opened on, the one the page last switched to.
		}, serve.Options{Logger: so.Logger, Beside: c.page(w, sess, followers), Auth: authn, Store: shared,
			Stateless: *storeFlags.stateless || shared != nil})
		// Each HTTP request leaves ~130 KiB of garbage (go-sdk's decoding)
		// over a small live heap: collect every httpGCFloor, not every few
		// dozen requests (internal/gcfloor).
		gcfloor.Start(httpGCFloor)
		// A plain line scripts can wait for (the port, when 0 was asked).
		a := ln.Addr()
		fmt.Fprintf(c.stderr, "serving agent %s on http://%s/mcp\nstatus page on http://%s/ui/\n", sess.Agent(), a, a)
		err = clients.Serve(c.ctx, ln)
	} else {
		srv := serve.New(sess, serve.Options{Logger: so.Logger})
		defer srv.Close()
		if *ui != "" {
			stopPage, err := c.servePage(c.ctx, *ui, c.page(w, sess, nil), so.Logger)
			if err != nil {
				return c.fail(exitFail, err)
			}
			defer stopPage()
		}
		so.Logger.Info("serve.stdio", "agent", sess.Agent())
		in, out := servingStdio(c.opts.Stdin, c.stdout)
		err = srv.ServeIO(c.ctx, in, out)
	}
	if err != nil {
		return c.fail(exitFail, err)
	}
	return exitOK
}

// httpGCFloor is how much garbage serve --http lets pile up between
// collections while its live heap is small (at most this much more memory).
const httpGCFloor = 32 << 20

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// toolJSON is one tool in --json output, in MCP's tools/list shape plus
// where it comes from.
type toolJSON struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	InputSchema json.RawMessage  `json:"inputSchema,omitempty"`
	Kind        runtime.ToolKind `json:"kind,omitempty"`
	Namespace   string           `json:"namespace,omitempty"`
}

func (c *cli) tools(args []string) int {
	fs := c.flags("tools")
	agent := c.agentFlags(fs)
	step := fs.String("step", "", "list what the agent can call while workflow step `WF/ROLE/STEP` is active")
	asJSON := fs.Bool("json", false, "print a JSON array")
	if code, ok := c.parseFlags(fs, args); !ok {
		return code
	}
	var wf, role, st string
	if *step != "" {
		parts := strings.Split(*step, "/")
		if len(parts) != 3 || slices.Contains(parts, "") {
			return c.usageErr(fs, "--step %q: want WORKFLOW/ROLE/STEP", *step)
		}
		wf, role, st = parts[0], parts[1], parts[2]
		if err := c.checkStep(*step); err != nil {
			return c.fail(exitFail, err)
		}
	}
	sess, _, err := c.open(*agent, slog.LevelWarn)
	if err != nil {
		return c.fail(exitFail, err)
	}
	defer sess.Close()
	if *step != "" {
		// The step's bundles become the agent's whole policy: print the
		// surface it has then, as toolgen explain --step does.
		if _, err = sess.ToolsForStep(c.ctx, wf, role, st); err != nil {
			return c.fail(exitFail, err)
		}
	}
	tools := sess.Tools()
	code := c.redServers(sess)
	if *asJSON {
		out := make([]toolJSON, len(tools))
		for i, t := range tools {
			out[i] = toolJSON{t.Name, t.Description, t.InputSchema, t.Kind, t.Namespace}
		}
		if jc := c.printJSON(out); jc != exitOK {
			return jc
		}
		return code
	}
	if len(tools) == 0 {
		fmt.Fprintln(c.stdout, "no tools")
		return code
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tKIND\tDESCRIPTION")
	for _, t := range tools {
		kind := string(t.Kind)
		if t.Namespace != "" && t.Namespace != kind {
			kind += " (" + t.Namespace + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, kind, summary(t.Description, 80))
	}
	tw.Flush()
	return code
}

// redServers says on stderr which of the agent's servers are down, and
// why; exitFail when every one is (the list lacks all their tools).
func (c *cli) redServers(sess *runtime.Session) int {
	servers := sess.Servers()
	red := 0
	for _, s := range servers {
		if s.Health == runtime.HealthRed {
			red++
			fmt.Fprintf(c.stderr, "%s: server %s is unavailable, its tools are not listed: %s\n", c.prog(), s.Name, s.Error)
		}
	}
	if red > 0 && red == len(servers) {
		return exitFail
	}
	return exitOK
}

// checkStep rejects a step address the registry does not declare: routing
// denies it by default, and an empty list would hide the typo.
func (c *cli) checkStep(addr string) error {
	var steps []string
	for _, w := range c.reg.Workflows {
		for _, r := range w.Roles {
			for _, s := range r.Steps {
				a := w.Name + "/" + r.Name + "/" + s.Name
				if a == addr {
					return nil
				}
				steps = append(steps, a)
			}
		}
	}
	if len(steps) == 0 {
		return fmt.Errorf("unknown step %q: this binary declares no workflows", addr)
	}
	return fmt.Errorf("unknown step %q%s (steps: %s)", addr, didYouMean(addr, steps), strings.Join(steps, ", "))
}

func (c *cli) call(args []string) int {
	fs := c.flags("call")
	agent := c.agentFlags(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) < 1 || len(pos) > 2 {
		return c.usageErr(fs, "want TOOL and optional JSON arguments, got %d arguments", len(pos))
	}
	tool, input := pos[0], "{}"
	if len(pos) == 2 {
		input = pos[1]
	}
	if input == "-" {
		b, err := io.ReadAll(c.opts.Stdin)
		if err != nil {
			return c.fail(exitFail, fmt.Errorf("read arguments from stdin: %w", err))
		}
		input = string(b)
	}
	if !json.Valid([]byte(input)) {
		return c.usageErr(fs, "arguments are not valid JSON: %s", summary(input, 60))
	}
	sess, _, err := c.open(*agent, slog.LevelWarn)
	if err != nil {
		return c.fail(exitFail, err)
	}
	defer sess.Close()
	c.loadForCall(sess, tool)
	res := sess.Call(c.ctx, tool, json.RawMessage(input))
	if code := c.printJSON(res); code != exitOK {
		return code
	}
	if !res.OK {
		return exitFail
	}
	return exitOK
}

// loadForCall activates tool first when the agent uses discovery and has
// not loaded it: a one-shot call stands for "load, then call". tool_load
// keeps the agent's policy; when it refuses, the call itself reports why.
func (c *cli) loadForCall(sess *runtime.Session, tool string) {
	var canLoad bool
	for _, t := range sess.Tools() {
		if t.Name == tool {
			return // already on the surface
		}
		canLoad = canLoad || t.Name == decl.ToolLoad
	}
	if !canLoad {
		return
	}
	names, _ := json.Marshal(map[string][]string{"names": {tool}})
	if res := sess.Call(c.ctx, decl.ToolLoad, names); res.OK {
		fmt.Fprintf(c.stderr, "%s: loaded %s with %s (agent %s uses discovery)\n", c.prog(), tool, decl.ToolLoad, sess.Agent())
	}
}

func (c *cli) find(args []string) int {
	fs := c.flags("find")
	agent := c.agentFlags(fs)
	limit := fs.Int("limit", 10, "at most `N` results")
	asJSON := fs.Bool("json", false, "print a JSON array")
	pos, err := parse(fs, args)
	if err != nil {
		return parseExit(err)
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return c.usageErr(fs, "want a QUERY")
	}
	if *limit < 1 {
		return c.usageErr(fs, "--limit must be at least 1")
	}
	sess, _, err := c.open(*agent, slog.LevelWarn)
	if err != nil {
		return c.fail(exitFail, err)
	}
	defer sess.Close()
	hits := sess.Find(query, *limit)
	if *asJSON {
		if hits == nil {
			hits = []runtime.FindHit{}
		}
		return c.printJSON(hits)
	}
	if len(hits) == 0 {
		fmt.Fprintf(c.stdout, "no tools match %q\n", query)
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tTOOL\tSCORE\tACTIVE\tDESCRIPTION")
	for i, h := range hits {
		active := "no"
		if h.Active {
			active = "yes"
		}
		fmt.Fprintf(tw, "%d\t%s\t%.3f\t%s\t%s\n", i+1, h.Name, h.Score, active, summary(h.Description, 70))
	}
	tw.Flush()
	return exitOK
}

func (c *cli) agents(args []string) int {
	fs := c.flags("agents")
	asJSON := fs.Bool("json", false, "print a JSON array")
	if code, ok := c.parseFlags(fs, args); !ok {
		return code
	}
	if c.reg == nil || len(c.reg.Agents) == 0 {
		return c.fail(exitFail, errors.New("this binary declares no agents"))
	}
	if *asJSON {
		type agentJSON struct {
			Name        string `json:"name"`
			Description string `json:"description,omitempty"`
			Default     bool   `json:"default"`
		}
		out := make([]agentJSON, len(c.reg.Agents))
		for i, a := range c.reg.Agents {
			out[i] = agentJSON{a.Name, a.Description, i == 0}
		}
		return c.printJSON(out)
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tDESCRIPTION")
	for i, a := range c.reg.Agents {
		name := a.Name
		if i == 0 {
			name += " (default)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, summary(a.Description, 80))
	}
	tw.Flush()
	return exitOK
}

func (c *cli) status(args []string) int {
	fs := c.flags("status")
	agent := c.agentFlags(fs)
	addr := fs.String("addr", "", "read the status of the agent running at `ADDR` (serve --http ADDR, or serve --stdio --ui ADDR)")
	asJSON := fs.Bool("json", false, "print a JSON array")
	if code, ok := c.parseFlags(fs, args); !ok {
		return code
	}
	if *addr != "" {
		if *agent != "" {
			return c.usageErr(fs, "--agent and --addr exclude each other: a running agent reports the agent it runs")
		}
		return c.remoteStatus(*addr, *asJSON)
	}
	// Said every time: a running agent's servers may be in another state.
	fmt.Fprintf(c.stderr, "%s status: starting its own copy of the agent's servers (not a running agent's; for one, use --addr ADDR)\n", c.prog())
	sess, _, err := c.open(*agent, slog.LevelWarn)
	if err != nil {
		return c.fail(exitFail, err)
	}
	defer sess.Close()
	servers := sess.Servers()
	red := slices.ContainsFunc(servers, func(s runtime.ServerStatus) bool { return s.Health == runtime.HealthRed })
	if *asJSON {
		type serverJSON struct {
			Name   string         `json:"name"`
			Health runtime.Health `json:"health"`
			Tools  int            `json:"tools"`
			Error  string         `json:"error,omitempty"`
		}
		out := make([]serverJSON, len(servers))
		for i, s := range servers {
			out[i] = serverJSON{s.Name, s.Health, s.Tools, s.Error}
		}
		return redExit(c.printJSON(out), red)
	}
	fmt.Fprintf(c.stdout, "agent %s: %d tools\n", sess.Agent(), len(sess.Tools()))
	fmt.Fprintf(c.stdout, "shell_exec containment: %s\n", builtin.Containment())
	if len(servers) == 0 {
		fmt.Fprintln(c.stdout, "no MCP servers")
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tHEALTH\tTOOLS\tERROR")
	for _, s := range servers {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", s.Name, s.Health, s.Tools, s.Error)
	}
	tw.Flush()
	return redExit(exitOK, red)
}

func (c *cli) printJSON(v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return c.fail(exitFail, err)
	}
	fmt.Fprintf(c.stdout, "%s\n", b)
	return exitOK
}

// summary is the first line of s, cut to n runes.
func summary(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// redExit is status's exit code: 1 when a server is red (unavailable), so
// scripts and health checks can tell; code when printing already failed.
func redExit(code int, red bool) int {
	if code == exitOK && red {
		return exitFail
	}
	return code
}
