// Command toolgen validates toolgen specs and generates Go code from them.
// The commands live in internal/cmd.
package main

import (
	"os"

	"github.com/toolgen-dev/toolgen/internal/cmd"
)

func main() {
	os.Exit(cmd.Do(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
