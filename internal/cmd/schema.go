package cmd

import (
	"fmt"
	"io"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// runSchema is `toolgen schema`: print the JSON Schema of the spec format.
func runSchema(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if code, ok := parseNoArgs("schema", args, stderr); !ok {
		return code
	}
	b, err := spechcl.JSONSchema()
	if err != nil {
		fmt.Fprintf(stderr, "toolgen schema: %v\n", err)
		return exitDiags
	}
	stdout.Write(b)
	return exitOK
}
