package agentcli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// workdirEnv names the variable that sets the directory policy paths
// resolve against, for hosts whose configuration takes variables more
// easily than arguments.
const workdirEnv = "TOOLGEN_WORKDIR"

// workdirFlag adds --workdir to a command that opens a session.
func (c *cli) workdirFlag(fs *flag.FlagSet) {
	fs.StringVar(&c.workdirArg, "workdir", "", "the `DIR` relative policy paths resolve against (default: $"+workdirEnv+", else the current directory)")
}

// agentFlags adds the flags of a command that opens a session of an
// agent: --workdir, and --agent, whose value it returns.
func (c *cli) agentFlags(fs *flag.FlagSet) *string {
	c.workdirFlag(fs)
	return fs.String("agent", "", "the agent (default: the first)")
}

// workdir is the stable base of relative policy paths, absolute: --workdir,
// else $TOOLGEN_WORKDIR, else Options.Session.Workdir, else the current
// directory. MCP hosts start servers in a directory of their own (often
// /), so a host configuration names it.
func (c *cli) workdir(arg string) (string, error) {
	dir, from := arg, "--workdir"
	if dir == "" {
		if v, ok := c.opts.Getenv(workdirEnv); ok && v != "" {
			dir, from = v, workdirEnv
		}
	}
	if dir == "" {
		dir, from = c.opts.Session.Workdir, "the working directory"
	}
	if dir == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", from, dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", from, dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s %q is not a directory", from, dir)
	}
	return abs, nil
}

// checkPolicyPaths fails when a path of a file policy the agent can use
// is missing under workdir: serving would start and every call of the
// tool would fail, and a host shows that only as failing calls. fs_write
// creates its missing directories, so only a non-directory is an error
// there.
func checkPolicyPaths(reg *runtime.Registry, sess *runtime.Session, workdir string) error {
	policies := agentPolicies(reg, sess)
	var problems []string
	for _, p := range reg.Policies {
		if !policies[p.Name] || (p.Builtin != "fs_read" && p.Builtin != "fs_write") {
			continue
		}
		for _, path := range p.AllowedPaths {
			abs := path
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(workdir, path)
			}
			st, err := os.Stat(abs)
			switch {
			case errors.Is(err, fs.ErrNotExist) && p.Builtin == "fs_write":
			case errors.Is(err, fs.ErrNotExist):
				problems = append(problems, fmt.Sprintf("policy %q: allowed path %q is %s, which does not exist", p.Name, path, abs))
			case err != nil:
				problems = append(problems, fmt.Sprintf("policy %q: allowed path %q: %v", p.Name, path, err))
			case !st.IsDir():
				problems = append(problems, fmt.Sprintf("policy %q: allowed path %q is %s, which is not a directory", p.Name, path, abs))
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s\nRelative paths resolve against %s; MCP hosts start servers in a directory of their own (often /), so pass --workdir DIR or set %s (mcp-config writes it)",
		strings.Join(problems, "\n"), workdir, workdirEnv)
}

// agentPolicies are the policies of the builtin tools the agent offers or
// can load (discovery), by name.
func agentPolicies(reg *runtime.Registry, sess *runtime.Session) map[string]bool {
	tools := map[string]*decl.Tool{}
	for i := range reg.Tools {
		tools[reg.Tools[i].Name] = &reg.Tools[i]
	}
	out := map[string]bool{}
	add := func(name string) {
		if t := tools[name]; t != nil && t.Kind == decl.KindBuiltin {
			out[t.Policy] = true
		}
	}
	for _, t := range sess.Tools() {
		add(t.Name)
	}
	var a *decl.Agent
	for i := range reg.Agents {
		if reg.Agents[i].Name == sess.Agent() {
			a = &reg.Agents[i]
		}
	}
	if a == nil {
		return out
	}
	for _, al := range a.Aliases {
		add(al.Target)
	}
	for _, u := range a.Use {
		switch u.Kind {
		case decl.UseTool:
			add(u.Name)
		case decl.UseGlob:
			for _, t := range reg.Tools {
				if decl.Match(u.Name, t.Name) {
					add(t.Name)
				}
			}
		case decl.UseBundle:
			for _, b := range reg.Bundles {
				if b.Name == u.Name {
					for _, n := range b.Tools {
						add(n)
					}
				}
			}
		}
	}
	if a.Allowed != nil {
		// allowed narrows use: a policy only reachable through a tool
		// outside it is never used.
		for p := range out {
			if !slices.ContainsFunc(reg.Tools, func(t decl.Tool) bool {
				return t.Policy == p && (a.Allow == nil || a.Allow(t.Name) || decl.MatchAny(a.Allowed, t.Name))
			}) {
				delete(out, p)
			}
		}
	}
	return out
}
