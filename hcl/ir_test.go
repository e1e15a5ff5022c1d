package hcl

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestIRGolden pins the whole IR of every valid fixture (ranges aside) in
// testdata/ir/<fixture>.json; go test ./hcl -update rewrites them.
func TestIRGolden(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/specs/valid/*")
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			spec, diags := Load(dir)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			got := irJSON(t, spec)
			golden := filepath.Join("testdata", "ir", name+".json")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./hcl -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("IR of %s (-want +got):\n%s", name, diff)
			}
		})
	}
}

// irJSON renders a spec without ranges, which TestRanges checks on its own.
func irJSON(t *testing.T, spec *ir.Spec) []byte {
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(b, &v)
	var strip func(any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "Range")
			for k, e := range x {
				x[k] = strip(e)
			}
		case []any:
			for i, e := range x {
				x[i] = strip(e)
			}
		}
		return v
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.Encode(strip(v))
	return out.Bytes()
}

// TestDesignExample checks the meaning of the DESIGN.md §3 example, split
// over several files (one in JSON syntax), field by field.
func TestDesignExample(t *testing.T) {
	spec, diags := Load("../testdata/specs/valid/design")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ignore := cmpopts.IgnoreTypes(hcl.Range{})
	if diff := cmp.Diff(ir.Defaults{
		ToolTimeout: 30 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 10 * time.Second,
		MaxDepth: 2, ContextBudget: 200000, InitConcurrency: 4,
	}, spec.Defaults, ignore); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if spec.Package != "devagent" || spec.Separator != "__" {
		t.Errorf("package %q separator %q", spec.Package, spec.Separator)
	}
	wantFiles := []string{"agents.hcl", "bundles.hcl.json", "servers.hcl", "toolgen.hcl", "tools.hcl", "workflows.hcl"}
	if diff := cmp.Diff(wantFiles, spec.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	github := spec.Server("github")
	if diff := cmp.Diff(&ir.Server{
		Name: "github", GoName: "Github", Transport: "stdio", Command: "npx",
		Args:       []string{"-y", "@modelcontextprotocol/server-github"},
		Env:        []ir.KeyValue{{Key: "GITHUB_TOKEN", Value: ir.Value{Parts: []ir.ValuePart{{Env: "GITHUB_TOKEN"}}}}},
		Trusted:    true,
		AllowTools: []string{"get_file_*", "search_code"}, DenyTools: []string{"delete_repo"},
		Queue: "github", Timeout: 20 * time.Second, Cache: 5 * time.Minute, StartupTimeout: 10 * time.Second,
		HealthCheck: &ir.HealthCheck{Interval: 15 * time.Second, Timeout: 3 * time.Second},
	}, github, ignore); diff != "" {
		t.Errorf("server github (-want +got):\n%s", diff)
	}
	docs := spec.Server("docs")
	wantAuth := []ir.KeyValue{{Key: "Authorization", Value: ir.Value{Parts: []ir.ValuePart{{Lit: "Bearer "}, {Env: "DOCS_TOKEN"}}}}}
	if diff := cmp.Diff(wantAuth, docs.Headers); diff != "" {
		t.Errorf("docs headers (-want +got):\n%s", diff)
	}
	if scraper := spec.Server("scraper"); scraper.Trusted {
		t.Errorf("scraper is trusted")
	}

	web := find(t, spec.Bundles, "web", func(b *ir.Bundle) string { return b.Name })
	if diff := cmp.Diff(&ir.Bundle{Name: "web", GoName: "Web", Mode: "meta", Server: "scraper", AllowTools: []string{"fetch_page"}}, web, ignore); diff != "" {
		t.Errorf("bundle web (from JSON) (-want +got):\n%s", diff)
	}
	weather := spec.Tool("weather")
	if got, want := string(weather.InputSchema), `{"properties":{"city":{"description":"City name","type":"string"}},"required":["city"],"type":"object"}`; got != want {
		t.Errorf("weather schema\n got %s\nwant %s", got, want)
	}
	if weather.Kind != ir.KindREST || weather.REST.Method != "GET" {
		t.Errorf("weather kind %q method %q", weather.Kind, weather.REST.Method)
	}
	summarize := spec.Tool("summarize")
	if diff := cmp.Diff(&ir.GoFunc{ImportPath: "example.com/agent/tools", Func: "Summarize"}, summarize.Go, ignore); diff != "" {
		t.Errorf("summarize go (-want +got):\n%s", diff)
	}

	coder := spec.Agent("coder")
	if diff := cmp.Diff(&ir.Agent{
		Name: "coder", GoName: "Coder", Description: "Writes and reviews code.",
		Use: []ir.UseEntry{
			{Kind: ir.UseTool, Name: "read_file"},
			{Kind: ir.UseServer, Name: "github"},
			{Kind: ir.UseBundle, Name: "web"},
			{Kind: ir.UseGlob, Name: "entities_*"},
		},
		Allowed: []ir.AllowEntry{
			{Pattern: "read", Matches: []string{"read_file"}},
			{Pattern: "github__*", IsGlob: true},
			{Pattern: "tool_*", IsGlob: true},
			{Pattern: "mcp_*", IsGlob: true},
			{Pattern: "agent__researcher"},
			{Pattern: "router__handoff-to"},
		},
		AllowedSet: true,
		// The entries, the alias's target and what they match now; the
		// globs also stay globs. Runtime tools are named like any other:
		// allowed is the agent's whole list.
		Allow:     &ir.AllowSet{Names: []string{"agent__researcher", "read", "read_file", "router__handoff-to"}, Globs: []string{"github__*", "tool_*", "mcp_*"}},
		Aliases:   []ir.Alias{{Name: "read", Target: "read_file"}},
		Discovery: true, Subagents: []string{"researcher"}, MaxDepth: 2, Router: []string{"reviewer"}, MaxTurns: 20,
	}, coder, ignore); diff != "" {
		t.Errorf("agent coder (-want +got):\n%s", diff)
	}
	if r := spec.Agent("reviewer"); r.Allowed != nil || r.AllowedSet || r.Allow != nil {
		t.Errorf("reviewer: Allowed %v AllowedSet %v Allow %v, want nil/false/nil when omitted", r.Allowed, r.AllowedSet, r.Allow)
	}
	if diff := cmp.Diff([]*ir.Workflow{{Name: "release", GoName: "Release", Roles: []*ir.Role{{
		Name: "planner", Steps: []*ir.Step{
			{Name: "plan", Bundles: []string{"code_read"}},
			{Name: "review", Bundles: []string{"code_read", "web"}},
		},
	}}}}, spec.Workflows, ignore); diff != "" {
		t.Errorf("workflows (-want +got):\n%s", diff)
	}
	var catalog []string
	for _, c := range spec.Catalog {
		catalog = append(catalog, c.Name)
	}
	if diff := cmp.Diff([]string{"read_file", "summarize", "weather"}, catalog); diff != "" {
		t.Errorf("catalog (-want +got):\n%s", diff)
	}
}

// TestRanges checks that the IR keeps the source ranges late diagnostics need.
func TestRanges(t *testing.T) {
	spec, diags := Load("../testdata/specs/valid/design")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	at := func(what string, r hcl.Range, file string, line, col int) {
		t.Helper()
		if filepath.Base(r.Filename) != file || r.Start.Line != line || r.Start.Column != col {
			t.Errorf("%s at %s:%d:%d, want %s:%d:%d", what, filepath.Base(r.Filename), r.Start.Line, r.Start.Column, file, line, col)
		}
	}
	at("tool read_file", spec.Tool("read_file").Range, "tools.hcl", 15, 1)
	at("bundle web", find(t, spec.Bundles, "web", func(x *ir.Bundle) string { return x.Name }).Range, "bundles.hcl.json", 11, 12)
	coder := spec.Agent("coder")
	at("use entries[3]", coder.Use[3].Range, "agents.hcl", 4, 59)
	at("alias read", coder.Aliases[0].Range, "agents.hcl", 6, 17)
	at("go func", spec.Tool("summarize").Go.Range, "tools.hcl", 39, 17)
}

func find[T any](t *testing.T, list []T, name string, key func(T) string) T {
	t.Helper()
	for _, x := range list {
		if key(x) == name {
			return x
		}
	}
	t.Fatalf("%q not found", name)
	var zero T
	return zero
}
