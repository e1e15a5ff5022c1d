// Package agentcli is the command line every toolgen agent binary shares:
//
//	serve  [--stdio [--ui ADDR] | --http ADDR] [--agent A]   run as an MCP server (and its status page)
//	run    [--agent A] [--json] [--max-turns N] PROMPT
//	                                              answer PROMPT on the agent's model
//	tools  [--agent A] [--step WF/ROLE/STEP]     list the tool surface (at a step)
//	call   [--agent A] TOOL [JSON]                call one tool, print the result
//	find   [--agent A] [--limit N] QUERY...      search the agent's tools
//	agents                                        list the agents
//	status [--agent A | --addr ADDR]              MCP servers and their health
//	login  [--no-browser] SERVER                  OAuth login to a server (tokens stored per user)
//	logout SERVER                                 forget that login
//	mcp-config [--agent A] HOST                   the host's configuration entry for this binary
//
// Commands that open an agent take --workdir DIR (or TOOLGEN_WORKDIR): the
// directory relative policy paths resolve against, by default the current
// one. MCP hosts start servers in a directory of their own, so mcp-config
// writes it into the entry.
//
// A generated agent's main is one line: os.Exit(agentcli.Main(pkg.Registry,
// os.Args[1:])). Logs and events go to stderr as slog text; stdout carries
// only results (and, under serve --stdio, only the MCP protocol).
package agentcli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/toolgen-dev/toolgen/internal/childenv"
	"github.com/toolgen-dev/toolgen/internal/didyoumean"

	"github.com/toolgen-dev/toolgen/runtime"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // a failed call, a session that could not open
	exitUsage = 2
)

// Options are the process facilities a command uses; tests substitute them.
// Zero fields mean the real process's.
type Options struct {
	// Name is the program's name in messages; default the registry's
	// package name.
	Name   string
	Stdin  io.ReadCloser
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (server env(), TOOLGEN_LOG).
	Getenv func(string) (string, bool)
	// Executable is the binary's absolute path for mcp-config; default
	// os.Executable with symlinks resolved.
	Executable string
	// Session is the base of every session's options; Logger and Getenv are
	// filled in from the fields above when unset.
	Session runtime.Options
}

func (o Options) withDefaults() Options {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Getenv == nil {
		o.Getenv = os.LookupEnv
	}
	return o
}

// Main runs the agent CLI with the process's stdio and environment. SIGINT
// and SIGTERM cancel the command; the session is then closed, which stops
// the MCP servers it started. It returns the exit code.
func Main(reg *runtime.Registry, args []string) int {
	// Before anything starts a child: no child may read this process's
	// environment, which holds every server's tokens.
	if err := childenv.Protect(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: warning: children may read this process's environment: %v\n", filepath.Base(os.Args[0]), err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal, restore the default handling: a second
	// Ctrl-C ends a teardown that hangs.
	context.AfterFunc(ctx, stop)
	return Run(ctx, reg, args, Options{Name: filepath.Base(os.Args[0])})
}

// Run is Main with an explicit context and options.
func Run(ctx context.Context, reg *runtime.Registry, args []string, opts Options) int {
	opts = opts.withDefaults()
	c := &cli{ctx: ctx, reg: reg, opts: opts, stdout: opts.Stdout, stderr: opts.Stderr}
	defer c.close()
	if len(args) == 0 {
		c.usage(opts.Stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		c.usage(opts.Stdout)
		return exitOK
	}
	for _, cmd := range commands {
		if cmd.name == name {
			return cmd.run(c, rest)
		}
	}
	names := make([]string, len(commands))
	for i, cmd := range commands {
		names[i] = cmd.name
	}
	fmt.Fprintf(opts.Stderr, "%s: unknown command %q%s\n", c.prog(), name, didYouMean(name, names))
	c.usage(opts.Stderr)
	return exitUsage
}

type command struct {
	name, args, help string
	run              func(*cli, []string) int
}

// commands in the order usage lists them; Run dispatches on the names.
var commands []command

// The table is set in init: the handlers' flag sets read it for their
// usage lines, which a package-level initializer cannot refer back to.
func init() {
	commands = []command{
		{"serve", "[--stdio [--ui ADDR] | --http ADDR] [--agent A] [--workdir DIR]", "run as an MCP server (stdio by default); --http and --ui serve the status page", (*cli).serve},
		{"run", "[--agent A] [--json] [--max-turns N] [--stream] PROMPT", "answer PROMPT (or stdin) with the agent's model, tools and sub-agents", (*cli).run},
		{"tools", "[--agent A] [--step WF/ROLE/STEP] [--json]", "list the tools the agent exposes (while a workflow step is active); exit 1 when every server of the agent is down", (*cli).tools},
		{"call", "[--agent A] TOOL [JSON]", "call one tool with JSON arguments and print the result", (*cli).call},
		{"find", "[--agent A] [--limit N] [--json] QUERY...", "search the agent's tools", (*cli).find},
		{"agents", "[--json]", "list the agents in this binary", (*cli).agents},
		{"status", "[--agent A | --addr ADDR] [--json]", "show the agent's MCP servers and their health (--addr: those of the agent running there); exit 1 when one is red", (*cli).status},
		{"login", "[--no-browser] SERVER", "log in to an OAuth-protected MCP server in the browser; the tokens are stored for every command", (*cli).login},
		{"logout", "SERVER", "forget the stored login of a server", (*cli).logout},
		{"mcp-config", "[--agent A] [--workdir DIR] [--name NAME] claude|claude-code|vscode|cursor", "print the host's configuration entry that starts this agent", (*cli).mcpConfig},
		{"version", "", "print this binary's version and commit, and the toolgen runtime it links", (*cli).version},
	}
}

type cli struct {
	ctx    context.Context
	reg    *runtime.Registry
	opts   Options
	stdout io.Writer
	stderr io.Writer
	host   *runtime.Host // made by the first open unless Options.Session names one
	// workdirArg is --workdir of the command running.
	workdirArg string
}

// close stops the Host it made, after the command's sessions closed.
func (c *cli) close() {
	if c.host != nil {
		c.host.Close()
	}
}

func (c *cli) prog() string {
	if c.opts.Name != "" {
		return c.opts.Name
	}
	if c.reg != nil && c.reg.Package != "" {
		return c.reg.Package
	}
	return "agent"
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s COMMAND [flags]\n\ncommands:\n", c.prog())
	for _, cmd := range commands {
		fmt.Fprintf(w, "  %-7s %s\n          %s\n", cmd.name, cmd.args, cmd.help)
	}
	fmt.Fprintf(w, "\nLogs go to stderr; TOOLGEN_LOG=debug|info|warn|error sets their level, TOOLGEN_LOG_FORMAT=json makes them JSON lines.\n")
}

// logger writes slog to stderr at TOOLGEN_LOG's level, or def: text, or
// one JSON object a line when TOOLGEN_LOG_FORMAT=json.
func (c *cli) logger(def slog.Level) *slog.Logger {
	level := def
	if v, ok := c.opts.Getenv("TOOLGEN_LOG"); ok && v != "" {
		if err := level.UnmarshalText([]byte(v)); err != nil {
			fmt.Fprintf(c.stderr, "%s: TOOLGEN_LOG=%q is not a level (debug, info, warn, error); using %s\n", c.prog(), v, def)
			level = def
		}
	}
	ho := &slog.HandlerOptions{Level: level}
	switch f, _ := c.opts.Getenv("TOOLGEN_LOG_FORMAT"); f {
	case "json":
		return slog.New(slog.NewJSONHandler(c.stderr, ho))
	case "", "text":
	default:
		fmt.Fprintf(c.stderr, "%s: TOOLGEN_LOG_FORMAT=%q is not a format (text, json); using text\n", c.prog(), f)
	}
	return slog.New(slog.NewTextHandler(c.stderr, ho))
}

// agent resolves --agent: empty means the first agent of the registry.
func (c *cli) agent(name string) (string, error) {
	if c.reg == nil || len(c.reg.Agents) == 0 {
		return "", fmt.Errorf("this binary declares no agents")
	}
	if name == "" {
		return c.reg.Agents[0].Name, nil
	}
	names := make([]string, len(c.reg.Agents))
	for i, a := range c.reg.Agents {
		if a.Name == name {
			return name, nil
		}
		names[i] = a.Name
	}
	return "", fmt.Errorf("unknown agent %q%s (agents: %s)", name, didYouMean(name, names), strings.Join(names, ", "))
}

// open starts a session for the named agent (or the default one) and
// returns the options it was opened with, for opening more like it.
func (c *cli) open(agentFlag string, level slog.Level) (*runtime.Session, runtime.Options, error) {
	agent, err := c.agent(agentFlag)
	if err != nil {
		return nil, runtime.Options{}, err
	}
	so := c.opts.Session
	if so.Logger == nil {
		so.Logger = c.logger(level)
	}
	if so.Getenv == nil {
		so.Getenv = c.opts.Getenv
	}
	if so.Host == nil { // one Host for the process: its sessions share pools, queues and connections
		if c.host == nil {
			c.host = runtime.NewHost(so.Logger)
		}
		so.Host = c.host
	}
	wd, err := c.workdir(c.workdirArg)
	if err != nil {
		return nil, so, err
	}
	so.Workdir = wd
	sess, err := runtime.Open(c.ctx, c.reg, agent, so)
	if err != nil {
		return nil, so, fmt.Errorf("open agent %s: %w", agent, err)
	}
	return sess, so, nil
}

// fail prints err to stderr and returns code.
func (c *cli) fail(code int, err error) int {
	fmt.Fprintf(c.stderr, "%s: %v\n", c.prog(), err)
	return code
}

// didYouMean suggests the closest of names to s, or returns "".
func didYouMean(s string, names []string) string {
	near := didyoumean.Nearest(s, names, 1)
	if len(near) == 0 {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", near[0])
}
