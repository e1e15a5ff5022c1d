package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const findCatalog = `{"tools": [
  {"name": "registry_list", "description": "List tasks in the registry.", "inputSchema": {"type": "object", "properties": {"status": {"type": "string"}}}},
  {"name": "registry_next", "description": "Return the next ready task from the registry.", "inputSchema": {"type": "object"}},
  {"name": "read_file", "description": "Read a text file.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
  {"name": "weather", "title": "Weather", "description": "Current weather for a city."}
]}`

func findRun(t *testing.T, in string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Do(append([]string{"find"}, args...), strings.NewReader(in), &out, &errb)
	return code, out.String(), errb.String()
}

func findWriteTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type findJSONResult struct {
	Query   string `json:"query"`
	Results []struct {
		Name  string  `json:"name"`
		Score float64 `json:"score"`
	} `json:"results"`
	Error string `json:"error"`
}

func findNames(r findJSONResult) []string {
	var out []string
	for _, h := range r.Results {
		out = append(out, h.Name)
	}
	return out
}

func TestFindCatalogText(t *testing.T) {
	cat := findWriteTemp(t, "tools.json", findCatalog)
	code, out, errs := findRun(t, "", "--catalog", cat, "registry", "list", "tasks")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "registry_list") || !strings.Contains(lines[1], "registry_next") {
		t.Errorf("output:\n%s", out)
	}
	if !strings.Contains(lines[0], "List tasks in the registry.") {
		t.Errorf("no description in %q", lines[0])
	}
}

func TestFindJSONAndLimit(t *testing.T) {
	// A bare JSON array works too; flags may follow the query.
	cat := findWriteTemp(t, "tools.json", `[{"name": "a_tool", "description": "alpha beta"}, {"name": "b_tool", "description": "alpha"}, {"name": "c_tool", "description": "alpha gamma"}]`)
	code, out, errs := findRun(t, "", "alpha", "--catalog", cat, "--json", "--limit", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r findJSONResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.Query != "alpha" || len(r.Results) != 2 || r.Results[0].Score < r.Results[1].Score {
		t.Errorf("result %+v", r)
	}
}

func TestFindBatch(t *testing.T) {
	cat := findWriteTemp(t, "tools.json", findCatalog)
	in := `{"query": "registry list tasks"}

not json
{"query": "weather", "limit": 1}
{"limit": 3}
`
	code, out, errs := findRun(t, in, "--batch", "--catalog", cat, "--limit", "5")
	if code != exitDiags {
		t.Errorf("exit %d, want %d for bad lines", code, exitDiags)
	}
	var got []findJSONResult
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r findJSONResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, r)
	}
	if len(got) != 4 {
		t.Fatalf("want 4 output lines (one per non-empty input), got %d:\n%s", len(got), out)
	}
	if diff := cmp.Diff([]string{"registry_list", "registry_next"}, findNames(got[0])); diff != "" {
		t.Errorf("line 1 (-want +got)\n%s", diff)
	}
	if !strings.Contains(got[1].Error, "line 3") || !strings.Contains(errs, "stdin:3") {
		t.Errorf("bad line: %+v, stderr %q", got[1], errs)
	}
	if diff := cmp.Diff([]string{"weather"}, findNames(got[2])); diff != "" {
		t.Errorf("line 4 (-want +got)\n%s", diff)
	}
	if !strings.Contains(got[3].Error, `want {"query"`) {
		t.Errorf("missing query: %+v", got[3])
	}
}

func TestFindSpec(t *testing.T) {
	dir := t.TempDir()
	spec := `toolgen {
  package = "demo"
}
policy "ws" {
  builtin       = "fs_read"
  allowed_paths = ["./workspace"]
}
tool "read_file" {
  description = "Read a UTF-8 text file inside the workspace."
  policy      = policy.ws
  category    = "files"
  keywords    = ["open", "cat", "contents"]
}
tool "list_dir" {
  description = "List the entries of a directory."
  policy      = policy.ws
}
`
	if err := os.WriteFile(filepath.Join(dir, "toolgen.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := findRun(t, "", "--spec", dir, "--json", "cat", "contents")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r findJSONResult
	json.Unmarshal([]byte(out), &r)
	if diff := cmp.Diff([]string{"read_file"}, findNames(r)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}

	// A broken spec is a diagnostic with its position, exit 1.
	if err := os.WriteFile(filepath.Join(dir, "toolgen.hcl"), []byte("tool \"x\" {\n  description = \n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = findRun(t, "", "--spec", dir, "x")
	if code != exitDiags || !strings.Contains(errs, "toolgen.hcl:2:") {
		t.Errorf("broken spec: exit %d, stderr %q", code, errs)
	}
}

func TestFindErrors(t *testing.T) {
	cat := findWriteTemp(t, "tools.json", findCatalog)
	bad := findWriteTemp(t, "bad.json", `{"tools": [{"description": "no name"}]}`)
	notTools := findWriteTemp(t, "obj.json", `{"items": []}`)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--catalog", cat}, exitUsage, "no query"},
		{[]string{"--catalog", cat, "--spec", ".", "q"}, exitUsage, "exclusive"},
		{[]string{"--catalog", cat, "--limit", "0", "q"}, exitUsage, "--limit"},
		{[]string{"--catalog", cat, "--batch", "q"}, exitUsage, "stdin"},
		{[]string{"--eval", "x", "q"}, exitUsage, "--eval"},
		{[]string{"--nope", "q"}, exitUsage, "nope"},
		{[]string{"--catalog", filepath.Join(t.TempDir(), "missing.json"), "q"}, exitDiags, "missing.json"},
		{[]string{"--catalog", bad, "q"}, exitDiags, "no name"},
		{[]string{"--catalog", notTools, "q"}, exitDiags, "tools/list"},
		{[]string{"--eval", t.TempDir()}, exitDiags, "catalog.json"},
	}
	for _, c := range cases {
		code, _, errs := findRun(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("find %v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.msg)
		}
	}
}

func TestFindEval(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "data", "toolret")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("toolret data not found")
	}
	code, out, errs := findRun(t, "", "--eval", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"707 tools, 569 queries", "R@1", "R@5", "MRR@10", "azure_mcp", "livemcp"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

const findEnrichment = `{"name": "weather", "queries": ["do I need an umbrella tomorrow"]}
{"name": "read_file", "queries": ["show me what notes.md says"]}
`

// TestFindEnrich: --enrich adds stored queries, so a tool is found through
// them, in single queries and in batches.
func TestFindEnrich(t *testing.T) {
	cat := findWriteTemp(t, "tools.json", findCatalog)
	enrich := findWriteTemp(t, "enrichment.jsonl", findEnrichment)
	if code, out, _ := findRun(t, "", "--catalog", cat, "--json", "umbrella"); code != exitOK || !strings.Contains(out, `"results":[]`) {
		t.Fatalf("without enrichment: exit %d, %s", code, out)
	}
	code, out, errs := findRun(t, "", "--catalog", cat, "--enrich", enrich, "--json", "umbrella")
	var r findJSONResult
	if code != exitOK || json.Unmarshal([]byte(out), &r) != nil || !cmp.Equal(findNames(r), []string{"weather"}) {
		t.Fatalf("with enrichment: exit %d, %s %s", code, out, errs)
	}
	code, out, _ = findRun(t, `{"query": "umbrella"}`+"\n"+`{"query": "notes.md says"}`+"\n", "--batch", "--catalog", cat, "--enrich", enrich)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 2 || !strings.Contains(lines[0], `"weather"`) || !strings.Contains(lines[1], `"read_file"`) {
		t.Fatalf("batch: exit %d\n%s", code, out)
	}

	for _, c := range []struct{ file, msg string }{
		{`{"name": "nope", "queries": ["x"]}`, `1 tools are not among the tools searched, such as "nope"`},
		{findEnrichment + `{"name": "weather"`, "enrichment.jsonl: line 3:"},
	} {
		bad := findWriteTemp(t, "enrichment.jsonl", c.file)
		if code, _, errs := findRun(t, "", "--catalog", cat, "--enrich", bad, "q"); code != exitDiags || !strings.Contains(errs, c.msg) {
			t.Errorf("enrichment %q: exit %d, stderr %q, want %q", c.file, code, errs, c.msg)
		}
	}
	if code, _, errs := findRun(t, "", "--catalog", cat, "--enrich", filepath.Join(t.TempDir(), "missing.jsonl"), "q"); code != exitDiags || !strings.Contains(errs, "missing.jsonl") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}

// TestFindEvalEnrich scores a labelled set without and with enrichment, on
// a catalog given apart from the queries.
func TestFindEvalEnrich(t *testing.T) {
	cat := findWriteTemp(t, "tools.json", findCatalog)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(
		`{"query": "do I need an umbrella", "relevant_groups": [["weather"]], "source": "s"}`+"\n"+
			`{"query": "list tasks", "relevant_groups": [["registry_list"]], "source": "s"}`+"\n"), 0o644)
	enrich := findWriteTemp(t, "enrichment.jsonl", findEnrichment)
	code, out, errs := findRun(t, "", "--eval", dir, "--catalog", cat, "--enrich", enrich)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "4 tools, 2 queries (" + dir + ")\n" +
		"without enrichment:\n" +
		"source       queries    R@1    R@5  MRR@10\n" +
		"all                2  0.500  0.500   0.500\n" +
		"s                  2  0.500  0.500   0.500\n" +
		"with enrichment:\n" +
		"source       queries    R@1    R@5  MRR@10\n" +
		"all                2  1.000  1.000   1.000\n" +
		"s                  2  1.000  1.000   1.000\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestFindSpecEnrichment: a spec's toolgen.enrich.json is searched.
func TestFindSpecEnrichment(t *testing.T) {
	spec := writeSpec(t, smallSpec)
	enrich := `{"version": 1, "prompt_version": "t", "tools": {"read_note": {"hash": "sha256:00", "queries": ["what did I jot down yesterday"]}}}`
	if err := os.WriteFile(filepath.Join(spec, "toolgen.enrich.json"), []byte(enrich), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := findRun(t, "", "--spec", spec, "jot", "down")
	if code != exitOK || !strings.Contains(out, "read_note") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
