package cmd

import (
	"flag"
	"fmt"
	"io"
	"slices"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// runValidate is `toolgen validate [--format=text|short|json] DIR`: load the
// spec and report every diagnostic. Exit 0 when there are no errors
// (warnings pass), 1 when there are.
func runValidate(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "diagnostics `format`: text, short or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: toolgen validate [--format=text|short|json] DIR")
		fs.PrintDefaults()
	}
	dir, code := oneDirArg(fs, args)
	if code >= 0 {
		return code
	}
	if !slices.Contains(diagFormats, *format) {
		fmt.Fprintf(stderr, "toolgen validate: unknown --format %q (want text, short or json)\n", *format)
		return exitUsage
	}
	_, files, diags := spechcl.LoadDir(dir)
	// JSON is for programs: it goes to stdout, even when empty.
	w := stderr
	if *format == "json" {
		w = stdout
	}
	if len(diags) > 0 || *format == "json" {
		if err := writeDiags(w, *format, diags, files); err != nil {
			fmt.Fprintf(stderr, "toolgen validate: %v\n", err)
			return exitDiags
		}
	}
	return diagsExit(diags)
}

// oneDirArg parses flags given before or after the one positional argument.
// It returns the argument and -1, or an exit code when parsing ended.
func oneDirArg(fs *flag.FlagSet, args []string) (string, int) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return "", exitOK
			}
			return "", exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
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
