package cmd

import (
	"flag"
	"fmt"
	"io"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// runSchema is `toolgen schema`: print the JSON Schema of the spec format.
func runSchema(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: toolgen schema") }
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	b, err := spechcl.JSONSchema()
	if err != nil {
		fmt.Fprintf(stderr, "toolgen schema: %v\n", err)
		return exitDiags
	}
	stdout.Write(b)
	return exitOK
}
