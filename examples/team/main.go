// Command team-agent is the agent binary of the team example: a lead that
// plans, a reader sub-agent that reads the workspace, a writer the lead can
// hand the conversation to, and the same pair on Anthropic. Run it from the
// repository root:
//
//	OPENAI_API_KEY=… go run ./examples/team run --agent lead "What do the notes say about the release?"
package main

//go:generate go tool toolgen generate -o ../../generated/team ./spec

import (
	"os"

	"github.com/toolgen-dev/toolgen/generated/team"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
)

func main() { os.Exit(agentcli.Main(team.Registry, os.Args[1:])) }
