// Command skills-agent is the agent binary of the skills example: a writer
// agent with a release-notes skill. Serve it to an MCP host (the skill is
// listed by skills/list and read at skill://release-notes/SKILL.md) or run
// it on a model, which loads the skill when it asks for it. From the
// repository root:
//
//	go run ./examples/skills serve
//	OPENAI_API_KEY=… go run ./examples/skills run "Write release notes for CHANGES.md"
package main

//go:generate go tool toolgen generate -o ../../generated/skills ./spec

import (
	"os"

	"github.com/toolgen-dev/toolgen/generated/skills"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
)

func main() { os.Exit(agentcli.Main(skills.Registry, os.Args[1:])) }
