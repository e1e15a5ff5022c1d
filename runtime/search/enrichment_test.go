package search_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// TestEnrichmentFindsTool: a tool whose own words share nothing with a
// request is found through its stored queries, and only then.
func TestEnrichmentFindsTool(t *testing.T) {
	docs := []search.Doc{
		{Name: "create_entities", Description: "Create multiple new entities in the knowledge graph", Params: []string{"entities"}},
		{Name: "read_graph", Description: "Read the entire knowledge graph"},
		{Name: "weather", Description: "Current weather for a city.", Params: []string{"city"}},
	}
	const q = "remember a person"
	if hits := search.Build(docs).Search(q, 5); len(hits) != 0 {
		t.Fatalf("found without enrichment: %v", hits)
	}
	docs[0].Queries = []string{"remember that Alice is my sister", "save a new person I met", "keep track of a customer"}
	hits := search.Build(docs).Search(q, 5)
	if got := names(hits); !slices.Equal(got, []string{"create_entities"}) {
		t.Errorf("Search(%q) = %v, want [create_entities]", q, hits)
	}
	// The field is one more, not a replacement: the tool's own words still
	// rank it first.
	if got := names(search.Build(docs).Search("knowledge graph entities", 1)); !slices.Equal(got, []string{"create_entities"}) {
		t.Errorf("own words: %v", got)
	}
}

func TestEnrichmentHash(t *testing.T) {
	h := search.EnrichmentHash("get_weather", "Current weather for a city.", []string{"city", "units"})
	if !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
		t.Fatalf("hash %q", h)
	}
	if h2 := search.EnrichmentHash("get_weather", "Current weather for a city.", []string{"units", "city"}); h2 != h {
		t.Error("parameter order changed the hash")
	}
	for _, other := range []string{
		search.EnrichmentHash("get_weather2", "Current weather for a city.", []string{"city", "units"}),
		search.EnrichmentHash("get_weather", "Current weather for a town.", []string{"city", "units"}),
		search.EnrichmentHash("get_weather", "Current weather for a city.", []string{"city"}),
		// Parts are delimited: moving text between them is a change.
		search.EnrichmentHash("get_weatherC", "urrent weather for a city.", []string{"city", "units"}),
	} {
		if other == h {
			t.Errorf("a changed tool has the same hash %s", h)
		}
	}
}

func TestEnrichmentFile(t *testing.T) {
	e := &search.Enrichment{PromptVersion: "v1", Tools: map[string]*search.EnrichedTool{
		"weather": {Hash: search.EnrichmentHash("weather", "d", nil), Queries: []string{"umbrella?"}},
		"alpha":   {Hash: "sha256:00", Queries: []string{"a"}},
	}}
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "{\n  \"version\": 1,\n  \"prompt_version\": \"v1\",\n  \"tools\": {\n    \"alpha\"") || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("not canonical:\n%s", b)
	}
	back, err := search.ParseEnrichment(b)
	if err != nil {
		t.Fatal(err)
	}
	e.Version = search.EnrichmentVersion
	if diff := cmp.Diff(e, back); diff != "" {
		t.Errorf("round trip (-want +got)\n%s", diff)
	}

	for _, tc := range []struct{ in, want string }{
		{`{"version":2,"tools":{}}`, "version 2 is not supported"},
		{`{"version":1,"tools":{"a":{"hash":"md5:1","queries":["x"]}}}`, `tool "a": hash "md5:1"`},
		{`{"version":1,"tools":{"a":{"hash":"sha256:1","queries":[" "]}}}`, `tool "a": query 1 is empty`},
		{`{"version":1,"tools":{"a":null}}`, `tool "a": no hash`},
		{`{"version":1,"tools":{},"extra":1}`, `unknown field "extra"`},
		{`{"version":1,"tools":{}} {}`, "unexpected data"},
		{`{"version":1,"tools":{"a":{"hash":"sha256:1","queries":["` + strings.Repeat("x", 501) + `"]}}}`, "at most 500"},
	} {
		_, err := search.ParseEnrichment([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseEnrichment(%.60s) = %v, want %q", tc.in, err, tc.want)
		}
	}
	// A tool's problem names the tool, for pointing at it.
	_, err = search.ParseEnrichment([]byte(`{"version":1,"tools":{"a":{"hash":"x","queries":[]}}}`))
	var ee *search.EnrichmentError
	if !errors.As(err, &ee) || ee.Tool != "a" {
		t.Errorf("err = %#v, want an EnrichmentError for tool a", err)
	}
	// Syntax errors keep their offset.
	var se *json.SyntaxError
	if _, err := search.ParseEnrichment([]byte(`{"version":1,]`)); !errors.As(err, &se) || se.Offset != 14 {
		t.Errorf("syntax error: %#v", err)
	}
}

func TestParseQueryLines(t *testing.T) {
	got, err := search.ParseQueryLines(strings.NewReader(`{"name":"a","queries":["x","y"]}

{"name":"b","queries":[]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]string{"a": {"x", "y"}, "b": {}}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"name":"a","queries":["x"]}` + "\n" + `{"name":"a","queries":["y"]}`, `line 2: tool "a" is listed twice`},
		{`{"queries":["x"]}`, `line 1: want {"name"`},
		{`{"name":"a","query":"x"}`, `line 1: json: unknown field "query"`},
		{`{"name":"a","queries":[""]}`, "line 1: query 1 is empty"},
		{`not json`, "line 1:"},
	} {
		if _, err := search.ParseQueryLines(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseQueryLines(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestEnrichDocs(t *testing.T) {
	docs := []search.Doc{{Name: "a"}, {Name: "b"}}
	unknown := search.EnrichDocs(docs, map[string][]string{"b": {"q"}, "z": {"q"}, "c": nil})
	if !slices.Equal(unknown, []string{"c", "z"}) || docs[1].Queries[0] != "q" || docs[0].Queries != nil {
		t.Errorf("unknown %v, docs %+v", unknown, docs)
	}
}
