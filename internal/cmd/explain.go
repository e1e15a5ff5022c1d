package cmd

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/templates"
)

const explainUsage = `usage: toolgen explain DIR [--agent A] [--step WF/ROLE/STEP] [--route WF/ROLE/STEP=B1,B2]... [--depth N] [--json]

Prints what an agent, a workflow step, or an agent within a step can see
and call, and why: the use entry, glob, alias, bundle or restriction that
put each tool in or kept it out. It runs the runtime's own resolution over
the spec's declared and locked tools, without connecting any server.
With neither --agent nor --step, every agent is explained.

An agent within a step gets what a session has while the step is active:
the step's bundles, cut to the agent's tools.allowed, plus the runtime
tools the agent declares. --route overrides a step's bundles as a host's
runtime.Options.Routes does (an empty list denies the step); --depth
explains the agent as a sub-agent at that depth.`

// runExplain is `toolgen explain`.
func runExplain(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	agent := fs.String("agent", "", "explain the `agent`")
	step := fs.String("step", "", "explain a workflow step `WF/ROLE/STEP`")
	asJSON := fs.Bool("json", false, "print the explanation as JSON")
	depth := fs.Int("depth", 0, "explain the agent as a sub-agent at depth `N`")
	routes := routeFlag{}
	fs.Var(routes, "route", "override a step's bundles, as runtime.Options.Routes does: `WF/ROLE/STEP=B1,B2` (repeatable)")
	usageErr := func(format string, a ...any) int {
		if format != "" {
			fmt.Fprintf(stderr, "toolgen explain: "+format+"\n", a...)
		}
		fmt.Fprintln(stderr, explainUsage)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return exitUsage
	}
	// Flags may come before or after DIR.
	var dirs []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintln(stdout, explainUsage)
				return exitOK
			}
			return usageErr("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(dirs) != 1 {
		return usageErr("want exactly one spec directory, got %d", len(dirs))
	}
	if *depth < 0 {
		return usageErr("--depth %d: want 0 or more", *depth)
	}
	spec, files, diags := spechcl.LoadDir(dirs[0])
	if len(diags) > 0 {
		writeDiags(stderr, "text", diags, files)
	}
	if diags.HasErrors() {
		return exitDiags
	}
	reg := templates.RuntimeRegistry(spec, nil) // explain reads no Go types
	if err := checkRoutes(reg, routes); err != nil {
		fmt.Fprintf(stderr, "toolgen explain: %v\n", err)
		return exitDiags
	}
	if _, routed := routes[*step]; *step != "" && !routed {
		// The runtime denies an unknown step by default; here it is a typo.
		if err := checkStep(reg, *step); err != nil {
			fmt.Fprintf(stderr, "toolgen explain: %v\n", err)
			return exitDiags
		}
	}
	agents := []string{*agent}
	if *agent == "" && *step == "" {
		agents = agents[:0]
		for _, a := range reg.Agents {
			agents = append(agents, a.Name)
		}
	}
	var all []any
	for i, name := range agents {
		x, err := runtime.Explain(reg, runtime.ExplainOptions{Agent: name, Step: *step, Depth: *depth, Routes: routes})
		if err != nil {
			fmt.Fprintf(stderr, "toolgen explain: %v\n", err)
			return exitDiags
		}
		if *asJSON {
			all = append(all, x)
			continue
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if _, err := x.WriteTo(stdout); err != nil {
			fmt.Fprintf(stderr, "toolgen explain: %v\n", err)
			return exitDiags
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		var v any = all
		if len(all) == 1 {
			v = all[0]
		}
		if err := enc.Encode(v); err != nil {
			fmt.Fprintf(stderr, "toolgen explain: %v\n", err)
			return exitDiags
		}
	}
	return exitOK
}

// routeFlag collects --route WF/ROLE/STEP=B1,B2 into the map a host
// passes as runtime.Options.Routes.
type routeFlag map[string][]string

func (r routeFlag) String() string { return "" }

func (r routeFlag) Set(v string) error {
	addr, list, ok := strings.Cut(v, "=")
	if !ok || strings.Count(addr, "/") != 2 || slices.Contains(strings.Split(addr, "/"), "") {
		return fmt.Errorf("want WF/ROLE/STEP=BUNDLE,..., got %q", v)
	}
	if _, dup := r[addr]; dup {
		return fmt.Errorf("step %s routed twice", addr)
	}
	bundles := []string{} // "WF/ROLE/STEP=" denies the step
	for _, b := range strings.Split(list, ",") {
		if b = strings.TrimSpace(b); b != "" {
			bundles = append(bundles, b)
		}
	}
	r[addr] = bundles
	return nil
}

// checkRoutes reports a --route bundle the spec does not declare.
func checkRoutes(reg *runtime.Registry, routes routeFlag) error {
	var names []string
	for _, b := range reg.Bundles {
		names = append(names, b.Name)
	}
	for _, addr := range slices.Sorted(maps.Keys(routes)) {
		for _, b := range routes[addr] {
			if slices.Contains(names, b) {
				continue
			}
			msg := fmt.Sprintf("--route %s: the spec has no bundle %q", addr, b)
			if near := didyoumean.Nearest(b, names, 1); len(near) > 0 {
				msg += fmt.Sprintf("; did you mean %q?", near[0])
			}
			return errors.New(msg)
		}
	}
	return nil
}

// checkStep reports a WORKFLOW/ROLE/STEP address the spec does not declare,
// with the nearest one that it does.
func checkStep(reg *runtime.Registry, addr string) error {
	var all []string
	for _, w := range reg.Workflows {
		for _, r := range w.Roles {
			for _, st := range r.Steps {
				all = append(all, w.Name+"/"+r.Name+"/"+st.Name)
			}
		}
	}
	if slices.Contains(all, addr) {
		return nil
	}
	msg := fmt.Sprintf("the spec has no step %q (a step is WORKFLOW/ROLE/STEP)", addr)
	if near := didyoumean.Nearest(addr, all, 1); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", near[0])
	}
	return errors.New(msg)
}
