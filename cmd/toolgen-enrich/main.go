// Command toolgen-enrich writes a spec's enrichment file
// (toolgen.enrich.json): it asks the model of the spec's
// toolgen { enrich } block, through the provider's official SDK, for the
// search queries of each catalog tool. It is toolgen's `enrich` as a
// command of its own, so that toolgen, which go generate compiles in every
// build, links no model SDK. Run it from the module:
//
//	go run github.com/toolgen-dev/toolgen/cmd/toolgen-enrich [--force] [--dry-run] DIR
package main

import (
	"os"

	"github.com/toolgen-dev/toolgen/internal/cmd"
	_ "github.com/toolgen-dev/toolgen/runtime/models/anthropic"
	_ "github.com/toolgen-dev/toolgen/runtime/models/openai"
)

func main() {
	os.Exit(cmd.Enrich(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
