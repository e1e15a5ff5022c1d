package hcl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

const enrichSpec = `
policy "ws" {
  builtin       = "fs_read"
  allowed_paths = ["./ws"]
}
tool "read_file" {
  description = "Read a UTF-8 text file inside the workspace."
  policy      = policy.ws
}
tool "list_dir" {
  description = "List a directory."
  policy      = policy.ws
}
server "memory" { command = "memory-server" }
`

const enrichLock = `{"version": 1, "servers": {"memory": {"tools": [
  {"name": "create_entities", "description": "Create multiple new entities in the knowledge graph", "inputSchema": {"type": "object", "properties": {"entities": {"type": "array"}}}, "hash": "x"}
]}}}`

func catalogTool(spec *ir.Spec, name string) *ir.CatalogTool {
	for _, t := range spec.Catalog {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// TestEnrichmentLoaded: the stored queries reach the catalog tools they are
// keyed by, declared and locked alike; entries for other names are ignored
// (templates.TestEnrichmentDrift checks the warning for changed tools).
func TestEnrichmentLoaded(t *testing.T) {
	entities := search.EnrichmentHash("memory__create_entities", "Create multiple new entities in the knowledge graph", []string{"entities"})
	enrich := `{
  "version": 1,
  "prompt_version": "test-1",
  "tools": {
    "gone_tool": {"hash": "sha256:00", "queries": ["nothing"]},
    "memory__create_entities": {"hash": "` + entities + `", "queries": ["remember a person"]},
    "read_file": {"hash": "` + search.EnrichmentHash("read_file", "Read a file.", nil) + `", "queries": ["show me notes.md"]}
  }
}
`
	spec, _, diags := LoadFiles("spec", map[string][]byte{
		"main.hcl":            []byte(enrichSpec),
		"toolgen.lock.json":   []byte(enrichLock),
		search.EnrichmentFile: []byte(enrich),
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := catalogTool(spec, "memory__create_entities"); got == nil || !cmp.Equal(got.Queries, []string{"remember a person"}) || got.EnrichHash != entities {
		t.Errorf("locked tool: %+v", got)
	}
	if got := catalogTool(spec, "list_dir"); got.Queries != nil || got.EnrichHash != "" {
		t.Errorf("tool without enrichment: %+v", got)
	}
	rf := catalogTool(spec, "read_file")
	if !cmp.Equal(rf.Queries, []string{"show me notes.md"}) {
		t.Errorf("declared tool: %+v", rf)
	}
}

func TestEnrichmentInvalid(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
		line, col        int
	}{
		{"syntax", "{\n  \"version\": 1,\n  \"tools\": {,}\n}", "invalid character", 3, 14},
		{"version", `{"version": 9, "tools": {}}`, "version 9 is not supported", 1, 1},
		{"tool", "{\"version\": 1, \"tools\": {\n  \"read_file\": {\"hash\": \"sha256:1\", \"queries\": [\"\"]}}}", `tool "read_file": query 1 is empty`, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, diags := LoadFiles("spec", map[string][]byte{"main.hcl": []byte(enrichSpec), search.EnrichmentFile: []byte(tc.file)})
			if !diags.HasErrors() || len(diags) != 1 {
				t.Fatalf("diags = %v, want one error", diags)
			}
			d := diags[0]
			if d.Summary != "Invalid enrichment file" || !strings.Contains(d.Detail, tc.want) {
				t.Errorf("diag = %s: %s", d.Summary, d.Detail)
			}
			if d.Subject == nil || d.Subject.Start.Line != tc.line || d.Subject.Start.Column != tc.col {
				t.Errorf("range = %v, want %d:%d", d.Subject, tc.line, tc.col)
			}
		})
	}
}
