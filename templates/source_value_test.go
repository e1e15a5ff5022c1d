package templates

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dave/jennifer/jen"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// TestSourcePrinterMatchesFormat holds sourcePrinter to what valuePrinter
// and go/format print, byte for byte, on hand-made edge cases and on the
// lists of real and synthetic specs.
func TestSourcePrinterMatchesFormat(t *testing.T) {
	long := strings.Repeat("a_very_long_name_", 4)
	regs := map[string]*decl.Registry{"edges": {
		Tools: []decl.Tool{
			{Name: "t", Description: "Tab\there, \"quoted\", ünïcode, `ticks`.", Kind: decl.KindREST,
				InputSchema: json.RawMessage("{\n  \"type\": \"object\"\n}"),
				Keywords:    []string{}, RenamedFrom: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"},
				REST: &decl.REST{Method: "GET", URL: decl.Value{{Lit: "https://x/"}, {Env: "TOKEN"}},
					Headers: []decl.KeyValue{{Key: "Authorization", Value: decl.Value{{Lit: "Bearer "}, {Env: "TOKEN"}}}}},
				Timeout: 1500 * time.Millisecond, Queue: "q"},
			{Name: long, Description: strings.Repeat("long description ", 10), Kind: decl.KindGo, Timeout: time.Duration(7)},
			{Name: "raw", InputSchema: json.RawMessage("{\"a\":\"`\"}"), Server: "s", Original: "o", Kind: decl.KindMCP},
			{Name: "only"},
		},
		Agents: []decl.Agent{
			{Name: "a", Allowed: []string{}, Use: []decl.Use{{Kind: decl.UseGlob, Name: "x*"}}, MaxDepth: 3, Spawn: true},
			{Name: "b", Allowed: []string{strings.Repeat("x", 100)}, Subagents: []string{"a"}},
		},
		Policies: []decl.Policy{{Name: "p", Builtin: "fs_read", AllowedPaths: []string{"."}, Timeout: time.Minute, MaxOutputBytes: 10, AllowHardlinks: true}},
	}}
	for _, dir := range []string{"../examples/full/spec", "../examples/demo/spec", "../testdata/specs/valid/design"} {
		spec, diags := spechcl.Load(dir)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", dir, diags)
		}
		regs[dir] = registryValue(spec, nil)
	}
	synthetic := t.TempDir()
	writeSynthetic(t, synthetic, 300, 30)
	spec, diags := spechcl.Load(synthetic)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	regs["synthetic"] = registryValue(spec, nil)

	jenField := func(owner reflect.Value, name string) (jen.Code, bool) {
		switch name {
		case "Go":
			return nil, true
		case "Allow":
			return jen.Id("allow"), true
		}
		return nil, false
	}
	srcField := func(owner reflect.Value, name string) (string, bool) {
		switch name {
		case "Go":
			return "", true
		case "Allow":
			return "allow", true
		}
		return "", false
	}
	for name, reg := range regs {
		v := reflect.ValueOf(*reg)
		for i := range v.NumField() {
			list := v.Field(i)
			if list.Kind() != reflect.Slice || list.Len() == 0 {
				continue
			}
			f := jen.NewFile("p")
			f.ImportName(rtPkg, "runtime")
			f.Var().Id("x").Op("=").Add((&valuePrinter{consts: runtimeConsts, field: jenField}).literal(list))
			want, err := render(f)
			if err != nil {
				t.Fatal(err)
			}
			text, err := (&sourcePrinter{consts: runtimeSourceConsts, field: srcField}).literal(list, 0)
			if err != nil {
				t.Fatalf("%s %s: %v", name, v.Type().Field(i).Name, err)
			}
			_, wantVar, _ := strings.Cut(string(want), "var x = ")
			if got := text + "\n"; got != wantVar {
				t.Errorf("%s %s: sourcePrinter differs from go/format\ngot:\n%s\nwant:\n%s", name, v.Type().Field(i).Name, got, wantVar)
			}
		}
	}
}
