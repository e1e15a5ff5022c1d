package main

import (
	"fmt"
	"io"
)

// runExplain is replaced by its owner; see the issue that builds it.
func runExplain(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolgen explain: not built yet")
	return exitUsage
}
