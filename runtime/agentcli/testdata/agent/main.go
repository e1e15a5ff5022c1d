// Command agent is the agent binary agentcli's tests build and run: a
// hand-written Registry (what toolgen would generate) with a builtin, Go
// tools and the real server-everything over stdio.
//
// TESTAGENT_NODE and TESTAGENT_EVERYTHING name node and server-everything's
// dist/index.js; TESTAGENT_ROOT is the directory read_file may read.
// TESTAGENT_ALPHA, when set, is the hang fixture server: it adds the
// server alpha and the agent watcher (the status page tests');
// TESTAGENT_SNOOP, the hostile server snoop and the agent snooper;
// TESTAGENT_LISTCHANGED, the server lc and the agent changer.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
	"github.com/toolgen-dev/toolgen/runtime/decl"

	// serve --auth-issuer: the JWT access-token verifier.
	_ "github.com/toolgen-dev/toolgen/runtime/serve/jwtauth"
	// /metrics and OTLP, as toolgen { telemetry = true } links them.
	_ "github.com/toolgen-dev/toolgen/runtime/telemetry"
)

func main() {
	os.Exit(agentcli.Main(withListChanged(withApps(withSnoop(withOAuth(withAlpha(registry()))))), os.Args[1:]))
}

// withSnoop adds the hostile server snoop (TESTAGENT_SNOOP), which reads
// its parent's /proc environ, and the agent snooper, which uses it.
func withSnoop(reg *runtime.Registry) *runtime.Registry {
	bin := os.Getenv("TESTAGENT_SNOOP")
	if bin == "" {
		return reg
	}
	reg.Servers = append(reg.Servers, decl.Server{Name: "snoop", Transport: "stdio", Command: bin, Trusted: true,
		StartupTimeout: 30 * time.Second})
	reg.Agents = append(reg.Agents, decl.Agent{Name: "snooper", Description: "Uses the hostile server snoop.",
		Use: []decl.Use{{Kind: decl.UseServer, Name: "snoop"}}})
	return reg
}

// withAlpha adds the server alpha (TESTAGENT_ALPHA, pinged every 200 ms)
// and the agent watcher, which uses it, shout and report.
func withAlpha(reg *runtime.Registry) *runtime.Registry {
	bin := os.Getenv("TESTAGENT_ALPHA")
	if bin == "" {
		return reg
	}
	reg.Servers = append(reg.Servers, decl.Server{Name: "alpha", Transport: "stdio", Command: bin, Trusted: true,
		StartupTimeout: 30 * time.Second, HealthInterval: 200 * time.Millisecond, HealthTimeout: 5 * time.Second})
	reg.Tools = append(reg.Tools, decl.Tool{Name: "report", Description: "A build report far over response_max_bytes: it is spilled.",
		Kind: decl.KindGo, InputSchema: json.RawMessage(`{"type":"object"}`), Go: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(strings.Repeat("step finished without warnings\n", 5000))
		}})
	reg.Agents = append([]decl.Agent{{Name: "watcher", Description: "Watches the demo server alpha.",
		Use: []decl.Use{{Kind: decl.UseServer, Name: "alpha"}, {Kind: decl.UseTool, Name: "shout"}, {Kind: decl.UseTool, Name: "report"}, {Kind: decl.UseRuntime, Name: decl.ToolOutputRead}}}},
		reg.Agents...)
	return reg
}

func registry() *runtime.Registry {
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	use := func(kind decl.UseKind, names ...string) []decl.Use {
		var u []decl.Use
		for _, n := range names {
			u = append(u, decl.Use{Kind: kind, Name: n})
		}
		return u
	}
	return &runtime.Registry{
		Package:   "testagent",
		Separator: "__",
		Defaults: decl.Defaults{
			ToolTimeout:      30 * time.Second,
			ResponseMaxBytes: 100000,
			StartupTimeout:   30 * time.Second,
			MaxDepth:         2,
			InitConcurrency:  4,
		},
		Servers: []decl.Server{{
			Name:           "everything",
			Transport:      "stdio",
			Command:        os.Getenv("TESTAGENT_NODE"),
			Args:           []string{os.Getenv("TESTAGENT_EVERYTHING"), "stdio"},
			Trusted:        true,
			StartupTimeout: 30 * time.Second,
		}},
		Policies: []decl.Policy{{Name: "repo_read", Builtin: "fs_read", AllowedPaths: []string{os.Getenv("TESTAGENT_ROOT")}}},
		Tools: []decl.Tool{
			{Name: "read_file", Description: "Read a UTF-8 text file inside the repository.", Kind: decl.KindBuiltin, Policy: "repo_read",
				Category: "files", Keywords: []string{"open", "cat", "contents"}},
			{Name: "shout", Description: "Upper-case a piece of text.", Kind: decl.KindGo,
				InputSchema: obj(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`), Go: shout},
			{Name: "wipe_disk", Description: "Erase every file on the disk.", Kind: decl.KindGo,
				InputSchema: obj(`{"type":"object"}`), Go: func(context.Context, json.RawMessage) (json.RawMessage, error) {
					return nil, errors.New("wipe_disk must never run in tests")
				}},
		},
		Bundles: []decl.Bundle{
			{Name: "files", Mode: "direct", Tools: []string{"read_file"}},
			{Name: "loud", Mode: "direct", Tools: []string{"shout"}},
		},
		Workflows: []decl.Workflow{{Name: "release", Roles: []decl.Role{{Name: "planner", Steps: []decl.Step{
			{Name: "plan", Bundles: []string{"files"}},
			{Name: "announce", Bundles: []string{"files", "loud"}},
		}}}}},
		Agents: []decl.Agent{
			{Name: "helper", Description: "Reads files and echoes.",
				Use: append(append(use(decl.UseTool, "read_file", "shout", "wipe_disk"), use(decl.UseServer, "everything")...),
					use(decl.UseRuntime, decl.ToolBatch, decl.ToolFinalReport)...),
				Allowed: []string{"read_file", "shout", "everything__echo", "everything__get-sum", "agent__*"}},
			{Name: "gateway", Description: "Fronts server-everything: every tool, as the server has it.",
				Use: use(decl.UseServer, "everything")},
			{Name: "seeker", Description: "Starts with discovery tools only.",
				Use: append(use(decl.UseTool, "read_file", "shout"), use(decl.UseServer, "everything")...),
				Allowed: []string{"read_file", "shout", "everything__echo", "everything__trigger-*", // trigger-*: found only by hosts that can use them
					"tool_*", "mcp_call_tool"},
				Discovery: true},
		},
	}
}

func shout(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
	var a struct{ Text string }
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	return json.Marshal(strings.ToUpper(a.Text))
}
