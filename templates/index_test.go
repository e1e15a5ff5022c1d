package templates

import (
	"bytes"
	"encoding/json"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

var indexDocs = []search.Doc{
	{Name: "registry_list", Description: "List tasks in the registry, optionally filtered by status.", Category: "registry", Keywords: []string{"tasks", "backlog"}, Params: []string{"limit", "status"}},
	{Name: "registry_next", Description: "Return the next ready task from the registry.", Category: "registry", Keywords: []string{"task", "queue"}},
	{Name: "read_file", Description: "Read a UTF-8 text file inside the workspace.", Category: "files", Keywords: []string{"open", "cat", "contents"}, Params: []string{"path"}},
	{Name: "github__search_code", Description: "Search code across GitHub repositories \"quoted\" `backticks` \\ and ünïcode.", Params: []string{"q"}},
	{Name: "weather", Description: "Current weather for a city.", Params: []string{"city"}, Queries: []string{"do I need an umbrella tomorrow"}},
}

// enrichedQuery finds the weather tool only through its enrichment.
const enrichedQuery = "umbrella"

var indexQueries = []string{"registry list tasks", "read a file", "weather", "github search code", "ünïcode", "nothing matches this", enrichedQuery}

func TestEmitIndexFormat(t *testing.T) {
	tables := search.Build(indexDocs).Tables()
	out, err := EmitIndex("agent", "examples/dev/spec", tables)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(out), "\n", 3)
	if lines[0] != Header || lines[1] != "// source: examples/dev/spec" {
		t.Errorf("header lines = %q", lines[:2])
	}
	formatted, err := format.Source(out)
	if err != nil {
		t.Fatalf("emitted source does not parse: %v", err)
	}
	if !bytes.Equal(formatted, out) {
		t.Error("emitted source is not gofmt'd")
	}
	again, _ := EmitIndex("agent", "examples/dev/spec", search.Build(indexDocs).Tables())
	if !bytes.Equal(out, again) {
		t.Error("two emissions differ")
	}
	for _, want := range []string{"var " + indexVar + " = search.FromTables(&" + tablesVar + ")", "search.EnforceVersion("} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q", want)
		}
	}

	bad := tables
	bad.Version = 99
	if _, err := EmitIndex("agent", "x", bad); err == nil {
		t.Error("EmitIndex accepted tables of another format")
	}
}

// TestEmitIndexCompiles builds the emitted file in a package inside this
// module and checks that the compiled index answers like the built one.
func TestEmitIndexCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, tc := range []struct {
		name string
		docs []search.Doc
	}{{"docs", indexDocs}, {"empty", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			built := search.Build(tc.docs)
			src, err := EmitIndex("main", "templates/testdata", built.Tables())
			if err != nil {
				t.Fatal(err)
			}
			// Under testdata, so that ./... patterns never see the package.
			if _, err := os.Stat("testdata"); os.IsNotExist(err) {
				os.Mkdir("testdata", 0o755)
				t.Cleanup(func() { os.Remove("testdata") })
			}
			dir, err := os.MkdirTemp("testdata", "indexgen-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			write := func(name, data string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("index_gen.go", string(src))
			write("main.go", `package main

import (
	"encoding/json"
	"os"
)

// Prints the compiled index's answers and docs as JSON.
func main() {
	out := map[string]any{"len": `+indexVar+`.Len(), "docs": `+indexVar+`.Docs()}
	res := map[string]any{}
	for _, q := range os.Args[1:] {
		res[q] = `+indexVar+`.Search(q, 10)
	}
	out["results"] = res
	json.NewEncoder(os.Stdout).Encode(out)
}
`)
			cmd := exec.Command(goTool, append([]string{"run", "./" + filepath.ToSlash(dir)}, indexQueries...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("go run: %v\n%s", err, stderr.Bytes())
			}
			res := map[string]any{}
			for _, q := range indexQueries {
				res[q] = built.Search(q, 10)
			}
			if hits := built.Search(enrichedQuery, 10); tc.docs != nil && (len(hits) != 1 || hits[0].Name != "weather") {
				t.Fatalf("Search(%q) = %v, want the weather tool through its enrichment", enrichedQuery, hits)
			}
			want, _ := json.Marshal(map[string]any{"len": built.Len(), "docs": built.Docs(), "results": res})
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%v: %s", err, got)
			}
			json.Unmarshal(want, &w)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("compiled index differs from built (-built +compiled)\n%s", diff)
			}
		})
	}
}

// TestQuoteBytes: every byte value reads back through the Go quoting
// rules, and the literal is plain ASCII.
func TestQuoteBytes(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", string(all), "\x00\x00\x00\x00\t\x00\x00\x00", "ü\"\\`"} {
		q := quoteBytes(s)
		got, err := strconv.Unquote(q)
		if err != nil || got != s {
			t.Errorf("quoteBytes(%q) = %s, reads back as %q (%v)", s, q, got, err)
		}
		for i := 0; i < len(q); i++ {
			if q[i] < 0x20 || q[i] >= 0x7f {
				t.Errorf("quoteBytes(%q) has byte %#x", s, q[i])
			}
		}
	}
}
