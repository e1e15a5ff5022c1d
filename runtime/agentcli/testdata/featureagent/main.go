// Command featureagent is the agent binary of the prompt and resource
// tests: declared prompts and resources, and the real server-everything
// used directly, through a direct bundle with allow/deny lists, and
// through meta bundles (which bring none).
package main

import (
	"os"
	"time"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func main() { os.Exit(agentcli.Main(registry(), os.Args[1:])) }

func registry() *runtime.Registry {
	everything := func(name string, trusted bool) decl.Server {
		return decl.Server{
			Name: name, Transport: "stdio", Trusted: trusted, StartupTimeout: 30 * time.Second,
			Command: os.Getenv("TESTAGENT_NODE"), Args: []string{os.Getenv("TESTAGENT_EVERYTHING"), "stdio"},
		}
	}
	guarded := everything("guarded", true)
	guarded.AllowPrompts = []string{"args-*", "completable-prompt"}
	guarded.AllowResources = []string{"demo://resource/static/*", "Dynamic Text Resource"}
	guarded.DenyResources = []string{"demo://resource/static/document/instructions.md", "demo://resource/dynamic/text/13"}
	shady := everything("shady", false)
	shady.AllowTools = []string{"echo"}
	return &runtime.Registry{
		Package:   "featureagent",
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 30 * time.Second, MaxDepth: 2, InitConcurrency: 4},
		Servers:   []decl.Server{everything("everything", true), guarded, shady},
		Prompts: []decl.Prompt{{
			Name: "review", Description: "Review a file for bugs.",
			Arguments: []decl.PromptArgument{{Name: "path", Description: "File to review.", Required: true}},
			Messages:  []decl.PromptMessage{{Role: "user", Text: "Review {path} for bugs and explain each one."}},
		}, {
			// Takes the exposed name of a server prompt: the declared one wins.
			Name: "everything__simple-prompt", Messages: []decl.PromptMessage{{Role: "user", Text: "The declared prompt wins."}},
		}},
		Resources: []decl.Resource{{Name: "guide", URI: "docs://guide", Description: "The style guide.", MIMEType: "text/markdown", Text: "# Guide\n"}},
		Bundles: []decl.Bundle{
			{Name: "guarded_direct", Mode: "direct", Server: "guarded"},
			{Name: "everything_meta", Mode: "meta", Server: "everything"},
			{Name: "shady_meta", Mode: "meta", Server: "shady", AllowTools: []string{"echo"}},
		},
		Agents: []decl.Agent{
			{Name: "host", Description: "Everything, directly.", Use: []decl.Use{
				{Kind: decl.UseServer, Name: "everything"}, {Kind: decl.UsePrompt, Name: "review"}, {Kind: decl.UseResource, Name: "guide"}}},
			{Name: "guarded", Description: "A server behind allow and deny lists.", Use: []decl.Use{{Kind: decl.UseBundle, Name: "guarded_direct"}}},
			{Name: "both", Description: "Two servers claiming the same URIs.", Use: []decl.Use{
				{Kind: decl.UseServer, Name: "everything"}, {Kind: decl.UseBundle, Name: "guarded_direct"}, {Kind: decl.UsePrompt, Name: "everything__simple-prompt"}}},
			{Name: "meta", Description: "Meta bundles only.", Use: []decl.Use{
				{Kind: decl.UseBundle, Name: "everything_meta"}, {Kind: decl.UseBundle, Name: "shady_meta"}}},
		},
	}
}
