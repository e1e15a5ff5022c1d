package templates

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolgen-dev/toolgen/generated/demo"
	"github.com/toolgen-dev/toolgen/generated/full"
	smallex "github.com/toolgen-dev/toolgen/generated/small"
	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// exampleSpecs lists examples/*/spec with the generated/ dir each
// generates into.
func exampleSpecs(t *testing.T) map[string]string {
	t.Helper()
	dirs, err := filepath.Glob("../examples/*/spec")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example specs: %v", err)
	}
	out := map[string]string{}
	for _, d := range dirs {
		out[d] = filepath.Join("..", "generated", filepath.Base(filepath.Dir(d)))
	}
	return out
}

func loadSpec(t testing.TB, dir string) *ir.Spec {
	t.Helper()
	spec, diags := spechcl.Load(dir)
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", dir, diags)
	}
	return spec
}

// TestExamplesUpToDate regenerates every example in memory and fails on
// stale generated files (protobuf-go's check): run `make generate`.
func TestExamplesUpToDate(t *testing.T) {
	for specDir, genDir := range exampleSpecs(t) {
		spec := loadSpec(t, specDir)
		files, diags := Generate(spec)
		if diags.HasErrors() {
			t.Fatalf("generate %s: %v", specDir, diags)
		}
		for name, want := range files {
			got, err := os.ReadFile(filepath.Join(genDir, name))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("stale generated file %s (run make generate)", filepath.Join(genDir, name))
			}
		}
		entries, _ := os.ReadDir(genDir)
		for _, e := range entries {
			if _, ok := files[e.Name()]; !ok && strings.HasSuffix(e.Name(), "_gen.go") {
				t.Errorf("stale generated file %s is not generated any more", filepath.Join(genDir, e.Name()))
			}
		}
	}
}

// TestDeterministic: the same spec gives the same bytes from another
// working directory and on a second run.
func TestDeterministic(t *testing.T) {
	first, diags := Generate(loadSpec(t, "../examples/full/spec"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	abs, _ := filepath.Abs("../examples/full/spec")
	t.Chdir(os.TempDir())
	second, diags := Generate(loadSpec(t, abs))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("output depends on the working directory (-first +second):\n%s", diff)
	}
	for name, b := range first {
		lines := strings.SplitN(string(b), "\n", 3)
		if lines[0] != Header || lines[1] != "// source: examples/full/spec" {
			t.Errorf("%s header = %q", name, lines[:2])
		}
	}
}

// TestGeneratedMatchesRuntimeRegistry compares each compiled example
// registry with the one RuntimeRegistry builds from the same spec: data
// field by field, and the generated Allow and Route switches against their
// in-memory twins on every name the spec knows plus unknown ones.
func TestGeneratedMatchesRuntimeRegistry(t *testing.T) {
	for _, c := range []struct {
		spec string
		reg  *decl.Registry
	}{
		{"../examples/small/spec", smallex.Registry},
		{"../examples/full/spec", full.Registry},
		{"../examples/demo/spec", demo.Registry},
	} {
		t.Run(filepath.Base(filepath.Dir(c.spec)), func(t *testing.T) {
			compareRegistries(t, loadSpec(t, c.spec), c.reg)
		})
	}
	// examples/full: coder's allowed list has the glob everything__* (kept
	// for tools the server adds later) but not weather, which it uses.
	if a := full.Registry.Agents[0]; !a.Allow("everything__echo") || !a.Allow("everything__added_later") || a.Allow("weather") {
		t.Errorf("coder allow check wrong")
	}
}

// TestAllowCheckOnlyWithAllowed: an agent without tools.allowed gets no
// allow check (the runtime allows everything in use and never asks), an
// agent with one does, in the generated code and in memory alike.
func TestAllowCheckOnlyWithAllowed(t *testing.T) {
	spec := loadSpec(t, "../examples/full/spec")
	files, diags := Generate(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	mem := RuntimeRegistry(spec, nil)
	with := 0
	for i, a := range spec.Agents {
		fn := "func " + allowFunc(a) + "("
		if gen := full.Registry.Agents[i]; (gen.Allow != nil) != (a.Allowed != nil) {
			t.Errorf("agent %s: tools.allowed set %v, generated Allow set %v", a.Name, a.Allowed != nil, gen.Allow != nil)
		}
		if (mem.Agents[i].Allow != nil) != (a.Allowed != nil) {
			t.Errorf("agent %s: tools.allowed set %v, in-memory Allow set %v", a.Name, a.Allowed != nil, mem.Agents[i].Allow != nil)
		}
		if got := bytes.Contains(files[RoutesFile], []byte(fn)); got != (a.Allowed != nil) {
			t.Errorf("agent %s: tools.allowed set %v, %s in %s: %v", a.Name, a.Allowed != nil, fn, RoutesFile, got)
		}
		if a.Allowed != nil {
			with++
		}
	}
	if with == 0 || with == len(spec.Agents) {
		t.Fatalf("examples/full should have agents with and without tools.allowed (%d of %d have it)", with, len(spec.Agents))
	}
}

func compareRegistries(t *testing.T, spec *ir.Spec, gen *decl.Registry) {
	goTools, diags := LoadGoTools(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	mem := RuntimeRegistry(spec, goTools)
	if diff := cmp.Diff(mem, gen,
		cmpopts.IgnoreFields(decl.Registry{}, "Index", "Route"),
		cmpopts.IgnoreFields(decl.Agent{}, "Allow"),
		cmpopts.IgnoreFields(decl.Tool{}, "Go"),
		cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("registries differ (-memory +generated):\n%s", diff)
	}
	// Allowed keeps nil (everything in use) apart from empty.
	for i := range mem.Agents {
		if (mem.Agents[i].Allowed == nil) != (gen.Agents[i].Allowed == nil) {
			t.Errorf("agent %s: Allowed nil-ness differs", mem.Agents[i].Name)
		}
	}
	for _, tool := range gen.Tools {
		if (tool.Kind == decl.KindGo) != (tool.Go != nil) {
			t.Errorf("tool %s: kind %s with Go func %v", tool.Name, tool.Kind, tool.Go != nil)
		}
	}

	names := []string{"", "x", "read", "everything__", "everything__new_tool", "everything__get-env", "weather", "Read_file", "run_command"}
	for _, c := range spec.Catalog {
		names = append(names, c.Name, c.Name+"x", strings.ToUpper(c.Name))
	}
	for _, a := range spec.Agents {
		for _, al := range a.Aliases {
			names = append(names, al.Name, al.Target)
		}
	}
	for i, a := range mem.Agents {
		if (a.Allow == nil) != (gen.Agents[i].Allow == nil) {
			t.Errorf("agent %s: in-memory Allow set %v, generated %v", a.Name, a.Allow != nil, gen.Agents[i].Allow != nil)
			continue
		}
		if a.Allow == nil {
			continue
		}
		for _, n := range names {
			if got, want := gen.Agents[i].Allow(n), a.Allow(n); got != want {
				t.Errorf("agent %s: generated Allow(%q) = %v, in-memory %v", a.Name, n, got, want)
			}
		}
	}

	for _, w := range spec.Workflows {
		for _, r := range w.Roles {
			for _, s := range r.Steps {
				got, want := gen.Route(w.Name, r.Name, s.Name), mem.Route(w.Name, r.Name, s.Name)
				if !reflect.DeepEqual(got, want) || cap(got) != len(got) {
					t.Errorf("Route(%s/%s/%s) = %v (cap %d), want %v", w.Name, r.Name, s.Name, got, cap(got), want)
				}
				for _, bad := range [][3]string{{w.Name, r.Name, s.Name + "x"}, {w.Name, r.Name + "x", s.Name}, {w.Name + "x", r.Name, s.Name}} {
					if got := gen.Route(bad[0], bad[1], bad[2]); got != nil {
						t.Errorf("Route(%v) = %v, want nil (deny by default)", bad, got)
					}
				}
			}
		}
	}
	if got := gen.Route("", "", ""); got != nil {
		t.Errorf("Route of nothing = %v", got)
	}

	// The precompiled index holds the same documents as one built now.
	if diff := cmp.Diff(mem.Index.Docs(), gen.Index.Docs(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("index documents differ (-memory +generated):\n%s", diff)
	}
}

// TestGoToolWrappers calls the generated wrappers of examples/full.
func TestGoToolWrappers(t *testing.T) {
	byName := map[string]decl.GoFunc{}
	for _, tool := range full.Registry.Tools {
		if tool.Kind == decl.KindGo {
			byName[tool.Name] = tool.Go
		}
	}
	ctx := context.Background()
	out, err := byName[full.ToolSummarize](ctx, json.RawMessage(`{"text":"One. Two! Three? Four.","max_sentences":2}`))
	if err != nil || string(out) != `{"summary":"One. Two!","sentences":2}` {
		t.Errorf("summarize = %s, %v", out, err)
	}
	out, err = byName[full.ToolWordCount](ctx, json.RawMessage(`{"text":"a b A","unique":true}`))
	if err != nil || string(out) != `2` {
		t.Errorf("word_count = %s, %v", out, err)
	}
	if _, err := byName[full.ToolSummarize](ctx, json.RawMessage(`{"text":"x","bogus":1}`)); err == nil || !strings.Contains(err.Error(), `unknown field "bogus"`) {
		t.Errorf("unknown field: err = %v", err)
	}
	if _, err := byName[full.ToolSummarize](ctx, nil); err == nil || !strings.Contains(err.Error(), "text is empty") {
		t.Errorf("empty args reach the function as zero Args: err = %v", err)
	}
	if _, err := byName[full.ToolWordCount](ctx, json.RawMessage(`{"text":3}`)); err == nil || !strings.Contains(err.Error(), "word_count: invalid arguments") {
		t.Errorf("wrong type: err = %v", err)
	}
}

// TestNoSecretsInOutput: env() values stay variable names; what the
// variables hold when toolgen runs never reaches generated code.
func TestNoSecretsInOutput(t *testing.T) {
	const secret = "s3cr3t-value-from-the-environment"
	for _, v := range []string{"EVERYTHING_TOKEN", "SCRAPER_TOKEN", "WEATHER_KEY"} {
		t.Setenv(v, secret)
	}
	files, diags := Generate(loadSpec(t, "../examples/full/spec"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for name, b := range files {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s contains the value of an environment variable", name)
		}
	}
	if !bytes.Contains(files[RegistryFile], []byte(`decl.Value{{Lit: "Bearer "}, {Env: "SCRAPER_TOKEN"}}`)) {
		t.Errorf("registry does not name SCRAPER_TOKEN as a run-time lookup")
	}
}

// TestGeneratedPackagesVet builds and vets every committed generated
// package (and the example binaries using them).
func TestGeneratedPackagesVet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	cmd := exec.Command("go", "vet", "./generated/...", "./examples/...")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet ./generated/... ./examples/...: %v\n%s", err, out)
	}
}
