package cmd

import (
	"flag"
	"fmt"
	"io"
)

// parseNoArgs checks the command line of a command that takes no
// arguments: it returns the exit code and false when the command should
// stop there (-h, a flag or an argument it does not take).
func parseNoArgs(name string, args []string, stderr io.Writer) (int, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: toolgen "+name) }
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
