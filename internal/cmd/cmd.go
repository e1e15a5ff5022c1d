// Package cmd is the toolgen command line: each subcommand parses its
// flags, calls into the library (hcl loads and checks a spec, templates
// generates, writes and diffs its code), renders diagnostics and returns
// an exit code. cmd/toolgen's main only calls Do.
package cmd

import (
	"fmt"
	"io"
)

// Exit codes.
const (
	exitOK    = 0
	exitDiags = 1 // the spec has errors, or generated code is stale
	exitUsage = 2
)

type command struct {
	name  string
	usage string
	run   func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = []command{
	{"validate", "validate [--format=text|short|json] DIR", runValidate},
	{"generate", "generate [-o OUTDIR] [--check] DIR", runGenerate},
	{"fmt", "fmt [-w] DIR", runFmt},
	{"schema", "schema", runSchema},
	{"lock", "lock DIR", runLock},
	{"enrich", "enrich [--force] [--dry-run] DIR", runEnrich},
	{"find", "find [--spec DIR | --catalog FILE] [--limit N] [--json] [--batch] QUERY...", runFind},
	{"build-info", "build-info DIR", runBuildInfo},
	{"explain", "explain DIR [--agent A] [--step WF/ROLE/STEP] [--route WF/ROLE/STEP=B,...] [--depth N]", runExplain},
	{"init", "init [DIR]", runInit},
	{"import", "import [-o DIR] [--agent NAME] [--host HOST] FILE...", runImport},
	{"version", "version", runVersion},
}

// Do runs the toolgen command line args (without the program name) and
// returns the exit code: 0 ok, 1 diagnostics or stale output, 2 usage.
func Do(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" {
		// help CMD: the command's own usage and flags
		for _, c := range commands {
			if c.name == args[1] {
				return c.run([]string{"-h"}, stdin, stdout, stderr)
			}
		}
		fmt.Fprintf(stderr, "toolgen: unknown command %q\n", args[1])
		usage(stderr)
		return exitUsage
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "toolgen: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: toolgen COMMAND [ARGS]")
	for _, c := range commands {
		fmt.Fprintf(w, "  toolgen %s\n", c.usage)
	}
}
