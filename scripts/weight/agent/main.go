// Command agent is the README quick start's agent for `make weight`: the
// generated package of a one-tool spec (examples/small, an fs_read tool
// like the quick start's) behind agentcli.Main, as cmd/hello is.
package main

import (
	"os"

	"github.com/toolgen-dev/toolgen/generated/small"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
)

func main() { os.Exit(agentcli.Main(small.Registry, os.Args[1:])) }
