package search_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

func TestParseCatalog(t *testing.T) {
	want := []search.Doc{
		{Name: "a", Description: "Alpha tool.", Params: []string{"x", "y"}},
		{Name: "b", Description: "Bee. Does b.", Category: "cat", Keywords: []string{"k"}},
	}
	for _, in := range []string{
		`{"tools": [{"name": "a", "description": "Alpha tool.", "inputSchema": {"type": "object", "properties": {"y": {}, "x": {}}}},
		            {"name": "b", "title": "Bee", "description": "Does b.", "_meta": {"category": "cat", "keywords": ["k"]}}], "nextCursor": ""}`,
		` [{"name": "a", "description": "Alpha tool.", "inputSchema": {"properties": {"x": {}, "y": {}}}},
		   {"name": "b", "title": "Bee", "description": "Does b.", "_meta": {"category": "cat", "keywords": ["k"]}}]`,
	} {
		got, err := search.ParseCatalog([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
	}
	for in, msg := range map[string]string{
		``:                                  "unexpected end",
		`{"result": {}}`:                    "tools/list",
		`{"tools": {}}`:                     "tools",
		`[{"description": "x"}]`:            "tool 0 has no name",
		`[{"name": "a", "inputSchema": 3}]`: "inputSchema",
	} {
		_, err := search.ParseCatalog([]byte(in))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseCatalog(%q) err = %v, want %q", in, err, msg)
		}
	}
}

func TestSchemaParams(t *testing.T) {
	for schema, want := range map[string][]string{
		`{"type":"object","properties":{"path":{},"max":{},"Case":{}}}`: {"Case", "max", "path"},
		`{"type":"object","properties":{}}`:                             nil,
		`{"type":"object"}`:                                             nil,
		`not json`:                                                      nil,
		`[1,2]`:                                                         nil,
	} {
		if got := search.SchemaParams(json.RawMessage(schema)); !slices.Equal(got, want) || (want == nil) != (got == nil) {
			t.Errorf("SchemaParams(%s) = %#v, want %#v", schema, got, want)
		}
	}
}
