package cmd

import (
	"fmt"
	"io"
	"slices"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// runValidate is `toolgen validate [--format=text|short|json] DIR`: load the
// spec and report every diagnostic. Exit 0 when there are no errors
// (warnings pass), 1 when there are.
func runValidate(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("validate", stderr, "usage: toolgen validate [--format=text|short|json] DIR")
	format := fs.String("format", "text", "diagnostics `format`: text, short or json")
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
