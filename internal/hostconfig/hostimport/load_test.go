package hostimport_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/internal/hostconfig/hostimport"
)

// TestImportedSpecsLoad runs the real spec loader (what `toolgen validate`
// runs) over the spec imported from each fixture: it must load without a
// single diagnostic, warnings included (a literal secret would be one),
// and declare the servers Import reports, used by the one agent.
func TestImportedSpecsLoad(t *testing.T) {
	cases := map[string][]string{
		"claude":      {"claude_desktop_config.json"},
		"claude-code": {".mcp.json"},
		"vscode":      {".vscode/mcp.json"},
		"cursor":      {".cursor/mcp.json"},
		"merge":       {"claude_desktop_config.json", ".cursor/mcp.json"},
	}
	for dir, names := range cases {
		t.Run(dir, func(t *testing.T) {
			var files []hostimport.File
			for _, n := range names {
				b, err := os.ReadFile(filepath.Join("testdata", "import", dir, n))
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, hostimport.File{Name: n, Data: b})
			}
			res, diags := hostimport.Import(files, hostimport.Options{Package: "imported"})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			spec := t.TempDir()
			if err := os.WriteFile(filepath.Join(spec, "toolgen.hcl"), res.Spec, 0o644); err != nil {
				t.Fatal(err)
			}
			ir, diags := spechcl.Load(spec)
			if len(diags) > 0 {
				t.Fatalf("the imported spec does not load cleanly:\n%s\n%s", diags, res.Spec)
			}
			var servers []string
			for _, s := range ir.Servers {
				servers = append(servers, s.Name)
			}
			want := slices.Clone(res.Servers)
			slices.Sort(want)
			slices.Sort(servers)
			if !slices.Equal(servers, want) {
				t.Errorf("servers = %v, want %v", servers, want)
			}
			if len(ir.Agents) != 1 || ir.Agents[0].Name != "assistant" {
				t.Fatalf("agents = %v, want one named assistant", ir.Agents)
			}
			if ir.Package != "imported" {
				t.Errorf("package = %q, want imported", ir.Package)
			}
			// Formatting it again changes nothing.
			formatted, d := spechcl.Format("toolgen.hcl", res.Spec)
			if len(d) > 0 || string(formatted) != string(res.Spec) {
				t.Errorf("toolgen fmt would change the spec:\n%s", formatted)
			}
		})
	}
}

// FuzzImport: any bytes give either an error or a spec the real loader
// takes without an error, and Import never panics.
func FuzzImport(f *testing.F) {
	for _, p := range []string{
		"testdata/import/claude/claude_desktop_config.json",
		"testdata/import/claude-code/.mcp.json",
		"testdata/import/vscode/.vscode/mcp.json",
		"testdata/import/cursor/.cursor/mcp.json",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"mcpServers": {"a b": {"url": "https://u:p@h/x?k=v&token=t#f", "headers": {"Authorization": "Basic x"}}}}`))
	f.Add([]byte(`{"mcpServers": {"": {"command": ""}, "for": {"command": "x y", "args": [1, true, null, "$${x}", "%{ if }"], "env": {"for": "1", "in": "${in}", "a b": "3", "": "4", "ключ": "5"}}}}`))
	f.Add([]byte(`{"servers": {"a": {"type": "sse", "url": "http://h/${input:x}?q=${env:Y}", "headers": {"A": "${workspaceFolder}", "B": "${x:-y}", "X Y": "1", "é": "2"}}}, "inputs": [{"id": "x"}, {}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{".mcp.json", ".vscode/mcp.json"} {
			res, diags := hostimport.Import([]hostimport.File{{Name: name, Data: data}}, hostimport.Options{})
			if diags.HasErrors() {
				continue
			}
			_, _, d := spechcl.LoadFiles("spec", map[string][]byte{"toolgen.hcl": res.Spec})
			if d.HasErrors() {
				t.Fatalf("Import(%q) wrote a spec that does not load:\n%s\n%s", data, d, res.Spec)
			}
		}
	})
}
