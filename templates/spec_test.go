package templates

import (
	"encoding/json"
	"time"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// designSpec is the example of DESIGN.md §3 as the loader resolves it,
// built by hand so the emitters are tested without the loader.
func designSpec() *ir.Spec {
	lit := func(s string) ir.Value { return ir.Value{Parts: []ir.ValuePart{{Lit: s}}} }
	return &ir.Spec{
		Dir:       "testdata/design",
		Files:     []string{"toolgen.hcl"},
		Package:   "devagent",
		Separator: "__",
		Defaults: ir.Defaults{
			ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 10 * time.Second,
			MaxDepth: 2, ContextBudget: 200000, InitConcurrency: 4,
		},
		Queues: []*ir.Queue{{Name: "github", GoName: "Github", Concurrent: 3}},
		Servers: []*ir.Server{
			{
				Name: "docs", GoName: "Docs", Transport: "http", Trusted: true,
				URL:             lit("https://docs.example.com/mcp"),
				Headers:         []ir.KeyValue{{Key: "Authorization", Value: ir.Value{Parts: []ir.ValuePart{{Lit: "Bearer "}, {Env: "DOCS_TOKEN"}}}}},
				ProtocolVersion: "2025-11-25", StartupTimeout: 10 * time.Second,
			},
			{
				Name: "github", GoName: "Github", Transport: "stdio", Command: "npx",
				Args:            []string{"-y", "@modelcontextprotocol/server-github"},
				Env:             []ir.KeyValue{{Key: "GITHUB_TOKEN", Value: ir.Value{Parts: []ir.ValuePart{{Env: "GITHUB_TOKEN"}}}}},
				Trusted:         true,
				AllowTools:      []string{"search_code", "get_file_*"},
				DenyTools:       []string{"delete_repo"},
				Queue:           "github",
				Timeout:         20 * time.Second,
				Cache:           5 * time.Minute,
				StartupTimeout:  10 * time.Second,
				ProtocolVersion: "2025-11-25",
				HealthCheck:     &ir.HealthCheck{Interval: 15 * time.Second, Timeout: 3 * time.Second},
				Locked: []*ir.LockedTool{
					{Name: "get_file_contents", Description: "Get the contents of a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`), Hash: "h1"},
					{Name: "search_code", Description: "Search code.", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), Hash: "h2"},
				},
			},
			{
				Name: "scraper", GoName: "Scraper", Transport: "sse", URL: lit("http://localhost:9000/sse"),
				AllowTools: []string{"fetch_page"}, ProtocolVersion: "2025-11-25", StartupTimeout: 10 * time.Second,
			},
		},
		Policies: []*ir.Policy{
			{Name: "git", GoName: "Git", Builtin: "shell_exec", AllowedCommands: []string{"git", "go"}, Timeout: time.Minute},
			{Name: "workspace_read", GoName: "WorkspaceRead", Builtin: "fs_read", AllowedPaths: []string{"./workspace"}},
		},
		Tools: []*ir.Tool{
			{
				Name: "read_file", GoName: "ReadFile", Description: "Read a UTF-8 text file inside the workspace.",
				Kind: ir.KindBuiltin, Policy: "workspace_read", Category: "files",
				Keywords: []string{"open", "cat", "contents"}, RenamedFrom: []string{"fs_read_file"},
			},
			{
				Name: "weather", GoName: "Weather", Description: "Current weather for a city.", Kind: ir.KindREST,
				REST: &ir.REST{Method: "GET", URL: lit("https://api.weather.example/v1/{city}"),
					Headers: []ir.KeyValue{{Key: "Authorization", Value: ir.Value{Parts: []ir.ValuePart{{Lit: "Bearer "}, {Env: "WEATHER_KEY"}}}}}},
				InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}`),
			},
		},
		Bundles: []*ir.Bundle{
			{Name: "code_read", GoName: "CodeRead", Mode: "direct", Server: "github", AllowTools: []string{"search_code", "get_file_contents"}},
			{Name: "files", GoName: "Files", Mode: "direct", Tools: []string{"read_file"}},
			{Name: "web", GoName: "Web", Mode: "meta", Server: "scraper", AllowTools: []string{"fetch_page"}},
		},
		Agents: []*ir.Agent{
			{
				Name: "coder", GoName: "Coder", Description: "Writes and reviews code.",
				Use: []ir.UseEntry{
					{Kind: ir.UseTool, Name: "read_file"},
					{Kind: ir.UseServer, Name: "github"},
					{Kind: ir.UseBundle, Name: "web"},
					{Kind: ir.UseGlob, Name: "weath*", Matches: []string{"weather"}},
				},
				Allowed: []ir.AllowEntry{
					{Pattern: "read", Matches: []string{"read_file"}},
					{Pattern: "github__*", IsGlob: true, Matches: []string{"github__get_file_contents", "github__search_code"}},
				},
				AllowedSet: true,
				Aliases:    []ir.Alias{{Name: "read", Target: "read_file"}},
				Discovery:  true,
				Subagents:  []string{"researcher"},
				MaxDepth:   2,
				Router:     []string{"researcher"},
			},
			{
				Name: "researcher", GoName: "Researcher", Description: "Finds things.\nSecond line.",
				Use: []ir.UseEntry{
					{Kind: ir.UseBundle, Name: "code_read"},
					{Kind: ir.UseBundle, Name: "files"},
				},
				MaxDepth: 2,
			},
		},
		Workflows: []*ir.Workflow{{
			Name: "release", GoName: "Release",
			Roles: []*ir.Role{{Name: "planner", Steps: []*ir.Step{
				{Name: "plan", Bundles: []string{"code_read"}},
				{Name: "review", Bundles: []string{"code_read", "web"}},
			}}},
		}},
		Catalog: []*ir.CatalogTool{
			{Name: "github__get_file_contents", Description: "Get the contents of a file.", Kind: ir.KindMCP, Server: "github", Original: "get_file_contents", Params: []string{"path"}},
			{Name: "github__search_code", Description: "Search code.", Kind: ir.KindMCP, Server: "github", Original: "search_code", Params: []string{"q"}},
			{Name: "read_file", Description: "Read a UTF-8 text file inside the workspace.", Kind: ir.KindBuiltin, Category: "files", Keywords: []string{"open", "cat", "contents"}},
			{Name: "weather", Description: "Current weather for a city.", Kind: ir.KindREST, Params: []string{"city"}},
		},
	}
}
