// Command rest is the quick-start agent of scripts/weight/agent with
// runtime/rest linked (REST tools), for the feature table (scripts/weight/features.sh).
package main

import (
	"os"

	"github.com/toolgen-dev/toolgen/generated/small"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"

	_ "github.com/toolgen-dev/toolgen/runtime/rest"
)

func main() { os.Exit(agentcli.Main(small.Registry, os.Args[1:])) }
