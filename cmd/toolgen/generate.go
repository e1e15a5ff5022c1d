package main

import (
	"fmt"
	"io"
)

// runGenerate is replaced by its owner; see the issue that builds it.
func runGenerate(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "toolgen generate: not built yet")
	return exitUsage
}
