package templates

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dave/jennifer/jen"
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
