package main

import (
	"fmt"
	"io"
)

// runLock is replaced by its owner; see the issue that builds it.
func runLock(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolgen lock: not built yet")
	return exitUsage
}
