package templates

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/toolgen-dev/toolgen/hcl"
)

func TestValuePrinter(t *testing.T) {
	p := &valuePrinter{consts: runtimeConsts}
	cases := []struct {
		v    any
		want string
	}{
		{30 * time.Second, "30 * time.Second"},
		{time.Minute, "time.Minute"},
		{1500 * time.Millisecond, "1500 * time.Millisecond"},
		{time.Duration(7), "time.Duration(7)"},
		{json.RawMessage(`{"a":"b"}`), "json.RawMessage(`{\"a\":\"b\"}`)"},
		{json.RawMessage("{\"a\":\"`\"}"), "json.RawMessage(\"{\\\"a\\\":\\\"`\\\"}\")"},
		{[]string{}, "[]string{}"},
		{[]string{"a", "b"}, `[]string{"a", "b"}`},
	}
	for _, c := range cases {
		f := jen.NewFile("p")
		f.Var().Id("x").Op("=").Add(p.literal(reflect.ValueOf(c.v)))
		got := fmt.Sprintf("%#v", f)
		want := "var x = " + c.want
		if !slices.Contains(strings.Split(got, "\n"), want) {
			t.Errorf("%#v printed as\n%s\nwant line %q", c.v, got, want)
		}
	}
}

func TestSource(t *testing.T) {
	if got := Source("../examples/full/spec"); got != "examples/full/spec" {
		t.Errorf("in module: %q", got)
	}
	outside := t.TempDir()
	if err := os.Mkdir(filepath.Join(outside, "spec"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Source(filepath.Join(outside, "spec")); got != "spec" {
		t.Errorf("absolute, outside a module: %q", got)
	}
	t.Chdir(outside)
	if got := Source("spec"); got != "spec" {
		t.Errorf("relative, outside a module: %q", got)
	}
	if got := Source("./spec/"); got != "spec" {
		t.Errorf("relative with ./ and /: %q", got)
	}
}

// TestSourceOddPaths: a spec directory whose name holds a newline made
// the header comment end early, and generate failed with "This is a bug in
// toolgen". Such a path is quoted; ordinary ones are left as they are.
func TestSourceOddPaths(t *testing.T) {
	for dir, want := range map[string]string{
		"my spec":       "my spec",
		"spéc":          "spéc",
		"a\nb":          `"a\nb"`,
		"a\rb":          `"a\rb"`,
		"tab\there":     `"tab\there"`,
		"\"quoted\"":    `"\"quoted\""`,
		"bad\xffutf8":   `"bad\xffutf8"`,
		"line\u2028end": `"line\u2028end"`,
	} {
		if got := commentSafe(dir); got != want {
			t.Errorf("commentSafe(%q) = %s, want %s", dir, got, want)
		}
	}

	outside := t.TempDir()
	dir := filepath.Join(outside, "spec\nvar injected = 1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a directory with a newline in its name: %v", err)
	}
	src := "policy \"p\" {\n  builtin       = \"fs_read\"\n  allowed_paths = [\".\"]\n}\n\ntool \"read\" {\n  policy = policy.p\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags := hcl.Load(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	spec.Package = "odd"
	files, diags := Generate(spec)
	if diags.HasErrors() {
		t.Fatalf("generate: %v", diags)
	}
	for name, b := range files {
		lines := strings.SplitN(string(b), "\n", 3)
		if want := `// source: "spec\nvar injected = 1"`; lines[1] != want {
			t.Errorf("%s: header line 2 is %q, want %q", name, lines[1], want)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), name, b, parser.PackageClauseOnly); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
