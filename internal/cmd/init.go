package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/scaffold"
)

// runInit is `toolgen init [DIR]`: write a new agent project into DIR
// (default the working directory), inside a Go module, and print the
// commands that generate, build and try it. Nothing is overwritten.
func runInit(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("init", stderr,
		"usage: toolgen init [DIR]",
		"  writes spec/toolgen.hcl, gen.go, tools/tools.go, workspace/notes.md and cmd/NAME/main.go into DIR (default .), which must be inside a Go module",
	)
	pos, code := positional(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "toolgen init: want at most one directory, got %d\n", len(pos))
		fs.Usage()
		return exitUsage
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	p, err := scaffold.Init(dir)
	if err != nil {
		var exists *scaffold.ExistsError
		if errors.As(err, &exists) {
			err = fmt.Errorf("%s already has %s; toolgen init writes only new files, so nothing was written", dir, strings.Join(exists.Files, ", "))
		}
		fmt.Fprintf(stderr, "toolgen init: %v\n", err)
		return exitDiags
	}
	if err := p.WriteNextSteps(stdout, dir); err != nil {
		fmt.Fprintf(stderr, "toolgen init: %v\n", err)
		return exitDiags
	}
	return exitOK
}
