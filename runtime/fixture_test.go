package runtime

import (
	"encoding/json"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// fixture is the DESIGN.md §3 example spec as a Registry literal, with the
// in-process servers behind it. Each call returns a new Registry, so each
// test gets its own Pool.
type fixture struct {
	reg  *Registry
	conn *memConnector
}

func newFixture(agents ...decl.Agent) *fixture {
	conn := newMemConnector()
	conn.add("github", mcpServer("Use search_code before reading files.", "search_code", "get_file_contents", "get_file_history", "delete_repo", "create_issue"))
	conn.add("scraper", mcpServer("", "fetch_page", "post_form"))
	conn.add("docs", mcpServer("Docs server.", "search_docs"))
	goSchema := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)
	reg := &Registry{
		Package:   "devagent",
		Separator: "__",
		Defaults: decl.Defaults{ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 10 * time.Second,
			MaxDepth: 2, InitConcurrency: 4},
		Queues: []decl.Queue{{Name: "github", Concurrent: 3}},
		Servers: []decl.Server{
			{Name: "docs", Transport: "http", Trusted: true},
			{Name: "github", Transport: "stdio", Command: "npx", Trusted: true,
				Env:        []decl.KeyValue{{Key: "GITHUB_TOKEN", Value: decl.Value{{Env: "GITHUB_TOKEN"}}}},
				AllowTools: []string{"search_code", "get_file_*"}, DenyTools: []string{"delete_repo"},
				Queue: "github", Timeout: 20 * time.Second, Cache: 5 * time.Minute, ForwardInstructions: true},
			{Name: "scraper", Transport: "stdio", Command: "scraper", Trusted: false, AllowTools: []string{"fetch_page"}},
		},
		Policies: []decl.Policy{
			{Name: "git", Builtin: "shell_exec", AllowedCommands: []string{"git", "go"}, Timeout: 60 * time.Second},
			{Name: "workspace_read", Builtin: "fs_read", AllowedPaths: []string{"./workspace"}},
			{Name: "workspace_write", Builtin: "fs_write", AllowedPaths: []string{"./workspace/out"}},
		},
		Tools: []decl.Tool{
			{Name: "entities_create", Description: "Create an entity.", Kind: decl.KindGo, InputSchema: goSchema, Go: echoGo()},
			{Name: "entities_delete", Description: "Delete an entity.", Kind: decl.KindGo, InputSchema: goSchema, Go: echoGo()},
			{Name: "entities_get", Description: "Get an entity by id.", Kind: decl.KindGo, InputSchema: goSchema, Go: echoGo()},
			{Name: "entities_update", Description: "Update an entity.", Kind: decl.KindGo, InputSchema: goSchema, Go: echoGo()},
			{Name: "git", Description: "Run git or go.", Kind: decl.KindBuiltin, Policy: "git"},
			{Name: "github__get_file_contents", Description: "Get the contents of a file.", Kind: decl.KindMCP, Server: "github", Original: "get_file_contents"},
			{Name: "github__search_code", Description: "Search code.", Kind: decl.KindMCP, Server: "github", Original: "search_code"},
			{Name: "graph_traverse", Description: "Walk the knowledge graph from a node.", Kind: decl.KindGo, InputSchema: goSchema, Go: echoGo()},
			{Name: "read_file", Description: "Read a UTF-8 text file inside the workspace.", Kind: decl.KindBuiltin, Policy: "workspace_read",
				Category: "files", Keywords: []string{"open", "cat", "contents"}, RenamedFrom: []string{"fs_read_file"}},
			{Name: "registry_list", Description: "List tasks in the registry.", Kind: decl.KindGo, Category: "registry", Keywords: []string{"tasks"}, Go: echoGo()},
			{Name: "registry_next", Description: "Next task from the registry.", Kind: decl.KindGo, Category: "registry", Keywords: []string{"tasks"}, Go: echoGo()},
			{Name: "search_hybrid", Description: "Hybrid search over documents.", Kind: decl.KindGo, InputSchema: goSchema, Go: echoGo()},
			{Name: "summarize", Description: "Summarize a document.", Kind: decl.KindGo, Go: echoGo()},
			{Name: "weather", Description: "Current weather for a city.", Kind: decl.KindREST,
				REST:        &decl.REST{Method: "GET", URL: decl.Value{{Lit: "https://api.weather.example/v1/{city}"}}, Headers: []decl.KeyValue{{Key: "Authorization", Value: decl.Value{{Lit: "Bearer "}, {Env: "WEATHER_KEY"}}}}},
				InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
			{Name: "write_file", Description: "Write a file under workspace/out.", Kind: decl.KindBuiltin, Policy: "workspace_write"},
		},
		Bundles: []decl.Bundle{
			{Name: "code_read", Mode: "direct", Server: "github", AllowTools: []string{"search_code", "get_file_contents"}},
			{Name: "code_hist", Mode: "direct", Server: "github", AllowTools: []string{"get_file_*"}, DenyTools: []string{"get_file_contents"}},
			{Name: "files", Mode: "direct", Tools: []string{"read_file"}},
			{Name: "scrape_direct", Mode: "direct", Server: "scraper", AllowTools: []string{"fetch_page"}},
			{Name: "web", Mode: "meta", Server: "scraper", AllowTools: []string{"fetch_page"}},
			{Name: "docs_meta", Mode: "meta", Server: "docs"},
		},
		Agents: agents,
		Workflows: []decl.Workflow{{Name: "release", Roles: []decl.Role{{Name: "planner", Steps: []decl.Step{
			{Name: "plan", Bundles: []string{"code_read"}},
			{Name: "review", Bundles: []string{"code_read", "web"}},
			{Name: "history", Bundles: []string{"code_read", "code_hist"}},
			{Name: "untrusted", Bundles: []string{"scrape_direct"}},
		}}}}},
	}
	return &fixture{reg: reg, conn: conn}
}

func (f *fixture) opts(ev *events) Options {
	return Options{Logger: ev.logger(), Connector: f.conn, Getenv: func(k string) (string, bool) {
		if k == "GITHUB_TOKEN" {
			return "t0ken", true
		}
		return "", false
	}}
}

func useTools(names ...string) []decl.Use {
	var out []decl.Use
	for _, n := range names {
		k := decl.UseTool
		if decl.IsGlob(n) {
			k = decl.UseGlob
		}
		out = append(out, decl.Use{Kind: k, Name: n})
	}
	return out
}

// useRuntime opts in to runtime tools (runtime.NAME in a spec).
func useRuntime(names ...string) []decl.Use {
	var out []decl.Use
	for _, n := range names {
		out = append(out, decl.Use{Kind: decl.UseRuntime, Name: n})
	}
	return out
}
