package hcl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/didyoumean"
)

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"read_file":      "ReadFile",
		"handoff-to":     "HandoffTo",
		"github":         "Github",
		"readFile":       "ReadFile",
		"v2_api":         "V2Api",
		"2fa":            "X2fa",
		"a__b":           "AB",
		"search-code_v2": "SearchCodeV2",
	} {
		if got := ir.GoName(in); got != want {
			t.Errorf("ir.GoName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPackageName(t *testing.T) {
	for in, want := range map[string]string{
		"devagent":  "devagent",
		"Dev-Agent": "devagent",
		"my.spec":   "myspec",
		"2024":      "spec2024",
		"func":      "specfunc",
		"---":       "spec",
	} {
		if got := packageName(in); got != want {
			t.Errorf("packageName(%q) = %q, want %q", in, got, want)
		}
	}
	spec, _, diags := LoadFiles("/tmp/My-Agent", map[string][]byte{"a.hcl": []byte(`tool "t" { go = "x.y/z.T" }`)})
	if diags.HasErrors() || spec.Package != "myagent" {
		t.Fatalf("package %v, diags %v", spec, diags)
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"read_file", "write_file", "search_code"}
	for in, want := range map[string]string{
		"read_fil":   "read_file",
		"wrte_file":  "write_file",
		"list_files": "",
		"read_file":  "",
	} {
		if got := didyoumean.Suggest(in, cands); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
	// Ties go to the alphabetically first candidate, whatever the input order.
	if a, b := didyoumean.Suggest("ab", []string{"ac", "aa"}), didyoumean.Suggest("ab", []string{"aa", "ac"}); a != "aa" || b != "aa" {
		t.Errorf("tie: %q %q", a, b)
	}
}

// TestValues checks env() and templates in both syntaxes.
func TestValues(t *testing.T) {
	native := []byte(`server "s" {
  url     = "https://${env("HOST")}:8443/mcp"
  headers = {
    A = env("TOKEN")
    B = "Bearer ${env("TOKEN")}"
    C = "plain"
    D = "${"lit"}eral ${env("X")}${env("Y")}"
    E = "%{ if true }yes%{ endif }"
  }
}
`)
	jsonSrc := []byte(`{"server": {"s": {
  "url": "https://${env(\"HOST\")}:8443/mcp",
  "headers": {
    "A": "${env(\"TOKEN\")}",
    "B": "Bearer ${env(\"TOKEN\")}",
    "C": "plain",
    "D": "${\"lit\"}eral ${env(\"X\")}${env(\"Y\")}",
    "E": "%{ if true }yes%{ endif }"
  }
}}}`)
	lit := func(s string) ir.ValuePart { return ir.ValuePart{Lit: s} }
	env := func(s string) ir.ValuePart { return ir.ValuePart{Env: s} }
	wantURL := ir.Value{Parts: []ir.ValuePart{lit("https://"), env("HOST"), lit(":8443/mcp")}}
	wantHeaders := []ir.KeyValue{
		{Key: "A", Value: ir.Value{Parts: []ir.ValuePart{env("TOKEN")}}},
		{Key: "B", Value: ir.Value{Parts: []ir.ValuePart{lit("Bearer "), env("TOKEN")}}},
		{Key: "C", Value: ir.Value{Parts: []ir.ValuePart{lit("plain")}}},
		{Key: "D", Value: ir.Value{Parts: []ir.ValuePart{lit("literal "), env("X"), env("Y")}}},
		{Key: "E", Value: ir.Value{Parts: []ir.ValuePart{lit("yes")}}},
	}
	for name, files := range map[string]map[string][]byte{
		"native": {"s.hcl": native},
		"json":   {"s.hcl.json": jsonSrc},
	} {
		t.Run(name, func(t *testing.T) {
			spec, _, diags := LoadFiles("v", files)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			s := spec.Servers[0]
			if diff := cmp.Diff(wantURL, s.URL); diff != "" {
				t.Errorf("url (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantHeaders, s.Headers); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}
