package main

import (
	"fmt"
	"io"
)

// runFmt is replaced by its owner; see the issue that builds it.
func runFmt(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolgen fmt: not built yet")
	return exitUsage
}
