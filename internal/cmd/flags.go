package cmd

import (
	"flag"
	"fmt"
	"io"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// The command line of a command: its flag set, and its positional
// arguments among the flags.

// newFlags is a command's flag set: errors go to stderr, and its usage is
// the given lines, then the flags' defaults.
func newFlags(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for _, line := range usage {
			fmt.Fprintln(stderr, line)
		}
		fs.PrintDefaults()
	}
	return fs
}

// positional parses flags given before, between or after the positional
// arguments and returns those. It returns -1, or an exit code when parsing
// ended.
func positional(fs *flag.FlagSet, args []string) ([]string, int) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, exitOK
			}
			return nil, exitUsage
		}
		if fs.NArg() == 0 {
			return pos, -1
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// oneDirArg parses flags given before or after the one positional argument.
// It returns the argument and -1, or an exit code when parsing ended.
func oneDirArg(fs *flag.FlagSet, args []string) (string, int) {
	pos, code := positional(fs, args)
	if code >= 0 {
		return "", code
	}
	if len(pos) != 1 {
		if len(pos) > 1 {
			fmt.Fprintf(fs.Output(), "toolgen %s: want one spec directory, got %d\n", fs.Name(), len(pos))
		}
		fs.Usage()
		return "", exitUsage
	}
	return pos[0], -1
}

// loadDirArg is oneDirArg, then the spec in that directory: a command that
// needs a valid spec stops (code ≥ 0) on a usage error or on the spec's
// errors, which it has printed.
func loadDirArg(fs *flag.FlagSet, args []string, stderr io.Writer) (string, *ir.Spec, int) {
	dir, code := oneDirArg(fs, args)
	if code >= 0 {
		return "", nil, code
	}
	spec, files, diags := spechcl.LoadDir(dir)
	if diags.HasErrors() {
		writeDiags(stderr, "text", diags, files)
		return "", nil, exitDiags
	}
	return dir, spec, -1
}

// parseNoArgs checks the command line of a command that takes no
// arguments: it returns the exit code and false when the command should
// stop there (-h, a flag or an argument it does not take).
func parseNoArgs(name string, args []string, stderr io.Writer) (int, bool) {
	fs := newFlags(name, stderr, "usage: toolgen "+name)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK, false
		}
		return exitUsage, false
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitUsage, false
	}
	return exitOK, true
}
