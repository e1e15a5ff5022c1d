// Command workspace is an agent binary with a relative policy path, as
// `toolgen init` writes one: read_file may read ./workspace, resolved
// against --workdir, TOOLGEN_WORKDIR or the working directory. It also
// reads a token through env(), for mcp-config to name.
package main

import (
	"os"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
	"github.com/toolgen-dev/toolgen/runtime/decl"

	// /metrics and OTLP, as toolgen { telemetry = true } links them.
	_ "github.com/toolgen-dev/toolgen/runtime/telemetry"
)

func main() { os.Exit(agentcli.Main(registry, os.Args[1:])) }

// notesInstructions are the agent's own instructions: what a host gets in
// serve's initialize result.
const notesInstructions = "Answer from the notes in the workspace; quote the file you read."

var registry = &runtime.Registry{
	Package:   "notes",
	Separator: "__",
	Defaults: decl.Defaults{
		ToolTimeout:      30 * time.Second,
		ResponseMaxBytes: 100000,
		StartupTimeout:   10 * time.Second,
		MaxDepth:         2,
		InitConcurrency:  4,
	},
	Policies: []decl.Policy{{Name: "workspace_read", Builtin: "fs_read", AllowedPaths: []string{"./workspace"}}},
	Tools: []decl.Tool{
		{Name: "read_file", Description: "Read a UTF-8 text file inside the workspace.", Kind: decl.KindBuiltin, Policy: "workspace_read"},
		{Name: "weather", Description: "Current weather for a city.", Kind: decl.KindREST,
			InputSchema: []byte(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			REST: &decl.REST{Method: "GET", URL: decl.Value{{Lit: "https://weather.invalid/{city}"}},
				Headers: []decl.KeyValue{{Key: "Authorization", Value: decl.Value{{Lit: "Bearer "}, {Env: "WEATHER_TOKEN"}}}}}},
	},
	Agents: []decl.Agent{
		{Name: "notes", Description: "Reads the workspace.", Instructions: notesInstructions, Use: []decl.Use{{Kind: decl.UseTool, Name: "read_file"}, {Kind: decl.UseTool, Name: "weather"}}},
	},
}
