package agentcli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/hostconfig"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// mcpConfig is `mcp-config [--agent A] [--workdir DIR] [--name NAME] HOST`:
// print the host's configuration entry that starts this binary as the
// agent's MCP server: its absolute path, the agent, the directory policy
// paths resolve against, and the names (never the values) of the
// variables the agent reads.
func (c *cli) mcpConfig(args []string) int {
	fs := c.flags("mcp-config")
	agent := fs.String("agent", "", "the agent to serve (default: the first)")
	c.workdirFlag(fs)
	name := fs.String("name", "", "the server's `NAME` in the host's configuration (default: the agent's name)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) != 1 {
		names := make([]string, len(hostconfig.Formats))
		for i, f := range hostconfig.Formats {
			names[i] = string(f)
		}
		return c.usageErr(fs, "want one HOST: %s", strings.Join(names, ", "))
	}
	host, err := hostconfig.ParseFormat(pos[0])
	if err != nil {
		return c.usageErr(fs, "%v", err)
	}
	a, err := c.agent(*agent)
	if err != nil {
		return c.fail(exitFail, err)
	}
	bin, err := c.executable()
	if err != nil {
		return c.fail(exitFail, fmt.Errorf("find this binary's path: %w", err))
	}
	if strings.Contains(bin, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(c.stderr, "%s: %s is a temporary binary of go run, deleted when it exits; build the agent with go build and run mcp-config from that binary\n", c.prog(), bin)
	}
	wd, err := c.workdir(c.workdirArg)
	if err != nil {
		return c.fail(exitFail, err)
	}
	l := hostconfig.Launch{Name: *name, Binary: bin, Agent: a, Workdir: wd, Env: envNames(c.reg, a)}
	if err := hostconfig.WriteSnippets(c.stdout, c.stderr, host, l); err != nil {
		return c.fail(exitFail, err)
	}
	return exitOK
}

// executable is this binary's absolute path, symlinks resolved, so the
// host starts the same file wherever it starts from.
func (c *cli) executable() (string, error) {
	if c.opts.Executable != "" {
		return c.opts.Executable, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// envNames are the variables an agent may read when it runs: the env()
// values of the servers and REST tools it can reach through its tools,
// sub-agents, router destinations and workflow steps.
func envNames(reg *decl.Registry, agent string) []string {
	servers := map[string]*decl.Server{}
	for i := range reg.Servers {
		servers[reg.Servers[i].Name] = &reg.Servers[i]
	}
	tools := map[string]*decl.Tool{}
	for i := range reg.Tools {
		tools[reg.Tools[i].Name] = &reg.Tools[i]
	}
	bundles := map[string]*decl.Bundle{}
	for i := range reg.Bundles {
		bundles[reg.Bundles[i].Name] = &reg.Bundles[i]
	}
	agents := map[string]*decl.Agent{}
	for i := range reg.Agents {
		agents[reg.Agents[i].Name] = &reg.Agents[i]
	}
	names := map[string]bool{}
	value := func(v decl.Value) {
		for _, p := range v {
			if p.Env != "" {
				names[p.Env] = true
			}
		}
	}
	server := func(name string) {
		s := servers[name]
		if s == nil {
			return
		}
		value(s.URL)
		for _, kv := range append(slices.Clone(s.Env), s.Headers...) {
			value(kv.Value)
		}
	}
	tool := func(t *decl.Tool) {
		if t == nil {
			return
		}
		if t.Server != "" {
			server(t.Server)
		}
		if t.REST != nil {
			value(t.REST.URL)
			for _, kv := range t.REST.Headers {
				value(kv.Value)
			}
		}
	}
	bundle := func(name string) {
		b := bundles[name]
		if b == nil {
			return
		}
		server(b.Server)
		for _, n := range b.Tools {
			tool(tools[n])
		}
	}
	// Steps can be entered by any agent of the binary.
	for _, w := range reg.Workflows {
		for _, r := range w.Roles {
			for _, s := range r.Steps {
				for _, b := range s.Bundles {
					bundle(b)
				}
			}
		}
	}
	seen := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		a := agents[name]
		if a == nil || seen[name] {
			return
		}
		seen[name] = true
		for _, u := range a.Use {
			switch u.Kind {
			case decl.UseServer:
				server(u.Name)
			case decl.UseBundle:
				bundle(u.Name)
			case decl.UseTool:
				tool(tools[u.Name])
			case decl.UseGlob:
				// A glob may reach any server's tools found at run time.
				for i := range reg.Tools {
					if decl.Match(u.Name, reg.Tools[i].Name) {
						tool(&reg.Tools[i])
					}
				}
				lit := decl.LiteralPrefix(u.Name)
				for _, s := range reg.Servers {
					ns := s.Name + reg.Sep()
					if s.Trusted && (strings.HasPrefix(lit, ns) || strings.HasPrefix(ns, lit)) {
						server(s.Name)
					}
				}
			}
		}
		for _, n := range a.Subagents {
			visit(n)
		}
		for _, n := range a.Router {
			visit(n)
		}
		if a.Spawn {
			for _, other := range reg.Agents {
				visit(other.Name)
			}
		}
	}
	visit(agent)
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
