package templates

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// Descriptions are user text and may come from an untrusted server through
// the lock file: whatever they hold, they stay comments and generation works.
func TestDescriptionsCannotWriteGo(t *testing.T) {
	for _, desc := range []string{
		`Reads.\n/* */ ); func init() { println(\"INJECTED\") }; const ( //`,
		`Reads.\n// line\n*/ func init() {}`,
		`nul \u0000 byte`,
		`bom \ufeff inside`,
		`x\n/* y`,
		`cr\rfunc init() {}`,
	} {
		spec := `toolgen { package = "p" }
tool "t" {
  description = "` + desc + `"
  rest {
    method = "GET"
    url    = "https://api.example/v1"
  }
}
agent "a" {
  description = "` + desc + `"
  tools { use = [tool.t] }
}
`
		s, _, diags := spechcl.LoadFiles("spec", map[string][]byte{"spec.hcl": []byte(spec)})
		if diags.HasErrors() {
			t.Fatalf("%q: %s", desc, diags.Error())
		}
		files, diags := Generate(s)
		if diags.HasErrors() {
			t.Errorf("%q: generate: %s", desc, diags.Error())
			continue
		}
		for name, src := range files {
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
			if err != nil {
				t.Errorf("%q: %s does not parse: %v", desc, name, err)
				continue
			}
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "init" {
					t.Errorf("%q: %s gained a func init", desc, name)
				}
			}
			if strings.Contains(string(src), "\x00") || strings.Contains(string(src), "\ufeff") {
				t.Errorf("%q: %s holds a NUL or BOM", desc, name)
			}
		}
	}
}
