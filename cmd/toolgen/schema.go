package main

import (
	"fmt"
	"io"
)

// runSchema is replaced by its owner; see the issue that builds it.
func runSchema(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolgen schema: not built yet")
	return exitUsage
}
