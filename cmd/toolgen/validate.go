package main

import (
	"fmt"
	"io"
)

// runValidate is replaced by its owner; see the issue that builds it.
func runValidate(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolgen validate: not built yet")
	return exitUsage
}
